# Example stack: the staging application tier.
terraform {
  required_version = ">= 1.5"
}

resource "terraform_data" "service" {
  input = {
    image    = "registry.example.com/shop/api:1.42.0"
    replicas = 2
    cpu      = 512
    memory   = 1024
  }
}

resource "terraform_data" "autoscaling" {
  input = {
    min_capacity = 2
    max_capacity = 8
  }
}

resource "terraform_data" "dns_record" {
  input = {
    name    = "api.staging.example.com"
    type    = "CNAME"
    ttl     = 300
    records = ["staging-lb.example.com"]
  }
}
