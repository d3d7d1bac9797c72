#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a KUnit run's raw console log (KTAP) into `ok|fail|skip <suite.case>` lines.

Used by `make test-kunit` (mk/kunit.mk). Silence is never a pass: a build that
produced no log, a kernel that printed no KTAP, a suite that stopped before its
plan was complete, or a suite declared in kernel/tests/*.c that never reported
all become `fail` lines, so `selftests/lib/tally` counts them.

usage: ktap2results.py LOG TESTS_DIR [--build-failed] [--filtered]

--filtered: only some suites were asked for; do not demand the others.
"""

import glob
import os
import re
import sys

RESULT = re.compile(r'^(not ok|ok) (\d+)(?: -)? ?([^#]*?)\s*(#\s*(\S+).*)?$')
PLAN = re.compile(r'^1\.\.(\d+)')
SUBTEST = re.compile(r'^# Subtest: (\S+)')
KTAP_START = re.compile(r'K?TAP version \d+')
SUITE_DECL = re.compile(r'struct\s+kunit_suite\s+\w+\s*=\s*\{[^}]*?'
                        r'\.name\s*=\s*"([^"]+)"', re.S)


def declared_suites(tests_dir):
    """Suite names that kernel/tests/*.c define: each must report."""
    names = []
    for path in sorted(glob.glob(os.path.join(tests_dir, '*.c'))):
        with open(path, encoding='utf-8', errors='replace') as f:
            names += SUITE_DECL.findall(f.read())
    return names


def ktap_lines(log):
    """The log's KTAP lines with the console prefix cut and indent kept."""
    prefix = None
    for raw in log:
        raw = raw.rstrip('\n')
        if prefix is None:
            m = KTAP_START.search(raw)
            if not m:
                continue
            prefix = m.start()
        yield raw[prefix:] if len(raw) >= prefix else ''


def indent_of(line):
    return (len(line) - len(line.lstrip(' '))) // 4


def parse(lines):
    """Return (suites, top_plan): suites is a list of dicts in run order."""
    suites = []
    cur = None
    top_plan = None
    for line in lines:
        depth = indent_of(line)
        body = line.strip()
        if depth == 0:
            m = PLAN.match(body)
            if m and top_plan is None:
                top_plan = int(m.group(1))
                continue
            m = RESULT.match(body)
            if m and cur is not None:
                cur['verdict'] = m.group(1)
                cur['directive'] = (m.group(5) or '').upper()
                cur = None
            continue
        if depth == 1:
            m = SUBTEST.match(body)
            if m:
                cur = {'name': m.group(1), 'plan': None, 'cases': [],
                       'verdict': None, 'directive': ''}
                suites.append(cur)
                continue
            if cur is None:
                continue
            m = PLAN.match(body)
            if m and cur['plan'] is None:
                cur['plan'] = int(m.group(1))
                continue
            m = RESULT.match(body)
            if m:
                cur['cases'].append((m.group(1), m.group(3).strip(),
                                     (m.group(5) or '').upper()))
        # Deeper lines are parameterised sub-cases; their case line sums them.
    return suites, top_plan


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    log_path, tests_dir = argv[1], argv[2]
    build_failed = '--build-failed' in argv[3:]
    filtered = '--filtered' in argv[3:]
    out = []

    if build_failed or not os.path.exists(log_path):
        out.append('fail kunit.build')
        print('\n'.join(out))
        return 0

    with open(log_path, encoding='utf-8', errors='replace') as f:
        suites, top_plan = parse(ktap_lines(f))

    if top_plan is None and not suites:
        out.append('fail kunit.boot_no_ktap')

    seen = set()
    for s in suites:
        seen.add(s['name'])
        for verdict, case, directive in s['cases']:
            name = '%s.%s' % (s['name'], case or 'unnamed')
            if directive == 'SKIP':
                out.append('skip ' + name)
            else:
                out.append(('ok ' if verdict == 'ok' else 'fail ') + name)
        ran = len(s['cases'])
        if s['verdict'] is None:
            out.append('fail %s.crashed_after_%d_cases' % (s['name'], ran))
        elif s['plan'] is not None and ran < s['plan']:
            out.append('fail %s.ran_%d_of_%d_cases' % (s['name'], ran,
                                                      s['plan']))
        elif s['verdict'] == 'not ok' and all(v == 'ok' for v, _, _ in
                                              s['cases']):
            # Suite init/exit failed although every case passed.
            out.append('fail %s.suite' % s['name'])

    if top_plan is not None and len(suites) < top_plan:
        out.append('fail kunit.ran_%d_of_%d_suites' % (len(suites), top_plan))
    for name in [] if filtered else declared_suites(tests_dir):
        if name not in seen:
            out.append('fail %s.not_run' % name)

    print('\n'.join(out))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
