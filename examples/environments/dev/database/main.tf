# Example stack: the dev database. The password is a sensitive variable: driftgate masks it in every
# rendering, including where terraform_data copies it into `output` without a sensitivity mark.
terraform {
  required_version = ">= 1.5"
}

variable "db_password" {
  type      = string
  sensitive = true
}

resource "terraform_data" "db_instance" {
  input = {
    engine            = "postgres"
    engine_version    = "16.4"
    instance_class    = "db.t3.micro"
    allocated_storage = 100
    multi_az          = false
  }
}

resource "terraform_data" "db_credentials" {
  input = {
    username = "app"
    password = var.db_password
  }
}

resource "terraform_data" "db_parameter_group" {
  input = {
    family = "postgres16"
    parameters = {
      max_connections            = "200"
      log_min_duration_statement = "500"
    }
  }

  # A new parameter family cannot be changed in place.
  triggers_replace = ["postgres16"]
}
