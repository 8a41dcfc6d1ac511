"""Generated gRPC stubs of sdk/proto (gen_stubs.py). Do not edit."""
