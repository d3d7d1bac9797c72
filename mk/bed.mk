# mk/bed.mk: owned by the bed area (placeholder)
