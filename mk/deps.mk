# mk/deps.mk: owned by the deps area (placeholder)
