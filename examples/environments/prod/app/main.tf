# Example stack: the prod application tier.
terraform {
  required_version = ">= 1.5"
}

resource "terraform_data" "service" {
  input = {
    image    = "registry.example.com/shop/api:1.42.0"
    replicas = 4
    cpu      = 512
    memory   = 1024
  }
}

resource "terraform_data" "autoscaling" {
  input = {
    min_capacity = 4
    max_capacity = 16
  }
}

resource "terraform_data" "dns_record" {
  input = {
    name    = "api.prod.example.com"
    type    = "CNAME"
    ttl     = 300
    records = ["prod-lb.example.com"]
  }
}
