"""Toy fused kernels."""
