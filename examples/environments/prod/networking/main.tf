# Example stack: the network of the prod environment. terraform_data stands in for cloud resources so the
# demo runs offline; its `input` plays the role of the resource's attributes.
terraform {
  required_version = ">= 1.5"
}

resource "terraform_data" "vpc" {
  input = {
    cidr_block           = "10.30.0.0/16"
    enable_dns_hostnames = true
    tags = {
      Name        = "prod-vpc"
      Environment = "prod"
      ManagedBy   = "terraform"
    }
  }
}

resource "terraform_data" "subnet" {
  for_each = toset(["a", "b", "c"])

  input = {
    vpc        = terraform_data.vpc.output.tags.Name
    az         = "eu-west-1${each.key}"
    cidr_block = cidrsubnet("10.30.0.0/16", 8, index(["a", "b", "c"], each.key))
  }
}

resource "terraform_data" "security_group" {
  input = {
    name = "prod-web"
    ingress = [
      { port = 443, cidr_blocks = ["0.0.0.0/0"] },
      { port = 22, cidr_blocks = ["10.0.0.0/8"] },
    ]
  }
}

output "vpc_name" {
  value = terraform_data.vpc.output.tags.Name
}
