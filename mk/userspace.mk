# mk/userspace.mk: owned by the userspace area (placeholder)
