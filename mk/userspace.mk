# Userspace: provider (C), tools and tests (C++20), built with CMake.
US_BUILD      := $(BUILD)/userspace
US_BUILD_SAN  := $(BUILD)/userspace-san

.PHONY: userspace userspace-san
userspace: deps-check
	@cmake -S userspace -B $(US_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(US_BUILD) -j2

userspace-san: deps-check
	@cmake -S userspace -B $(US_BUILD_SAN) -DCMAKE_BUILD_TYPE=Debug -DMRC_SANITIZE=ON \
		-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
	@cmake --build $(US_BUILD_SAN) -j2

# test-unit: owned by the core/tests area; see below.
test-unit:
