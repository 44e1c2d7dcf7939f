"""Scenario scripts: real HTTP clients driven through each documented flow of each service."""
