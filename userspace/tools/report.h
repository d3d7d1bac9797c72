// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// Step reporting shared by the verbs tools: one line per step, "ok STEP
// ..." or "fail STEP: ...", which the bed cases grep; die() for setup
// errors that make the rest meaningless (exit 2).
#pragma once

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace mrc_tool {

// The tool's name in die()'s messages; each tool defines it.
extern const char *const kName;

inline int failures;

[[noreturn]] inline void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", kName);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

inline void report(bool ok, const char *step, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s", ok ? "ok" : "fail", step);
	if (fmt && *fmt) {
		printf(ok ? " " : ": ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	printf("\n");
	fflush(stdout);
	if (!ok)
		failures++;
}

}  // namespace mrc_tool
