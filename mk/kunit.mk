# mk/kunit.mk: owned by the kunit area (placeholder)
