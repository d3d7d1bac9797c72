# mk/bed.mk: the two-VM bed (placeholder until the foundation lands)
test-bed:
