# mk/kunit.mk: KUnit on UML (placeholder until the KUnit suites land)
test-kunit:
