# mk/kernel.mk: owned by the kernel area (placeholder)
