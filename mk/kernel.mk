# mk/kernel.mk: the out-of-tree module (placeholder until the foundation lands)
.PHONY: module
module:
