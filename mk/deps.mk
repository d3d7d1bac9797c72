# mk/deps.mk: dependencies (placeholder until the foundation lands)
.PHONY: deps deps-check
deps:
deps-check:
