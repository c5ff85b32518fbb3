# Example stack: the dev application tier.
terraform {
  required_version = ">= 1.5"
}

resource "terraform_data" "service" {
  input = {
    image    = "registry.example.com/shop/api:1.42.0"
    replicas = 1
    cpu      = 512
    memory   = 1024
  }
}

resource "terraform_data" "autoscaling" {
  input = {
    min_capacity = 1
    max_capacity = 4
  }
}

resource "terraform_data" "dns_record" {
  input = {
    name    = "api.dev.example.com"
    type    = "CNAME"
    ttl     = 300
    records = ["dev-lb.example.com"]
  }
}
