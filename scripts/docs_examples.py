#!/usr/bin/env python3
"""Runs the shell examples of README.md and docs/ against a real locstore server.

    python3 scripts/docs_examples.py --bin target/debug/locstore [FILE.md ...]
    python3 scripts/docs_examples.py --bin target/debug/locstore --self-test

A runnable example is a fenced code block whose info string is `sh run` (GitHub shows it as
`sh`). Lines `# => text` under a command are that command's expected output: the command's
standard output must match them, line for line, once volatile values are masked on both sides
(commit ids, export ids, times, tokens, webhook ids and secrets, ports, request ids). `...`
inside an expected line matches any text on that line; an expected line that is only `...`
matches any number of lines. A command without `# =>` lines is not checked, but it must exit 0.
A hidden set-up a reader does not need can be written as an HTML comment
`<!-- run: setup` ... `-->` (its lines are run as a block that is not shown).

Each file gets a fresh server (`locstore serve --listen 127.0.0.1:0`, started in a new empty
folder, so its data is in ./locstore-data there). Its blocks run in order, each by
`bash -e -o pipefail`, as if typed into one terminal: a block starts in the folder the block
before left and with the variables it set (`cd`, `export`, `url=...` carry over). The blocks
see B (the server's address),
TOKEN and LOCSTORE_TOKEN (the admin token the server printed on its first start), DATA (its
data folder) and PATH with the binary's folder first (so `locstore ...` is the binary tested).

The relative links of each file are checked too: they must name a file of the repository
(and, with a #fragment, one of its headings). Links that leave the repository fail.

It prints `ok FILE:LINE` or `FAIL FILE:LINE ...` per block and per broken link, then
`docs examples: N passed, M failed`, and exits 1 when M > 0. `--self-test` breaks one
expected line and one command of a copy of README.md and checks that both are reported.
"""

import argparse
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SHOW = False
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK_TIMEOUT = 60
FENCE = re.compile(r'^(\s*)(```+|~~~+)\s*(.*)$')


# ---------------------------------------------------------------------------------------------
# Reading the blocks of a markdown file.

class Block:
    def __init__(self, path, line, lines, hidden=False):
        self.path = path          # the file, as shown in messages
        self.line = line          # line of the opening fence (1-based)
        self.lines = lines        # [(line number, text)] of the block's body
        self.hidden = hidden


def read_blocks(path, shown):
    """The runnable blocks of a markdown file, in order."""
    blocks = []
    with open(path, encoding='utf-8') as f:
        text = f.read().split('\n')
    i = 0
    while i < len(text):
        line = text[i]
        if line.strip().startswith('<!-- run: setup'):
            start = i + 1
            body = []
            first = line.strip()[len('<!-- run: setup'):]
            if first.strip() and first.strip() != '-->':
                body.append((i + 1, first.strip()))
            i += 1
            while i < len(text) and '-->' not in text[i]:
                body.append((i + 1, text[i]))
                i += 1
            blocks.append(Block(shown, start, body, hidden=True))
            i += 1
            continue
        m = FENCE.match(line)
        if m:
            indent, fence, info = m.group(1), m.group(2), m.group(3).split()
            start = i + 1
            body = []
            i += 1
            while i < len(text):
                close = FENCE.match(text[i])
                if close and close.group(2).startswith(fence[0] * len(fence)) and not close.group(3).strip():
                    break
                raw = text[i]
                if indent and raw.startswith(indent):
                    raw = raw[len(indent):]
                body.append((i + 1, raw))
                i += 1
            if len(info) >= 2 and info[0] in ('sh', 'bash', 'shell') and info[1] == 'run':
                blocks.append(Block(shown, start, body))
        i += 1
    return blocks


# ---------------------------------------------------------------------------------------------
# Splitting a block into commands, each with the output expected under it.

class Command:
    def __init__(self):
        self.lines = []           # [(line number, text)]
        self.expected = []        # [(line number, text)]


def _scan(line, state):
    """Follows quotes, heredocs and nesting through one line of shell; returns the new state.

    state: dict(quote=None|"'"|'"', depth=int, heredocs=[pending terminators], cont=bool)."""
    i = 0
    n = len(line)
    word_start = True
    while i < n:
        c = line[i]
        q = state['quote']
        if q == "'":
            if c == "'":
                state['quote'] = None
            i += 1
            continue
        if q == '"':
            if c == '\\':
                i += 2
                continue
            if c == '"':
                state['quote'] = None
            i += 1
            continue
        if c == '\\':
            if i == n - 1:
                state['cont'] = True
                return state
            i += 2
            word_start = False
            continue
        if c in ('"', "'"):
            state['quote'] = c
            i += 1
            word_start = False
            continue
        if c == '#' and word_start:
            break
        if c == '<' and line.startswith('<<', i) and not line.startswith('<<<', i):
            m = re.match(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1", line[i:])
            if m:
                state['heredocs'].append(m.group(2))
                i += m.end()
                continue
        if c in '({':
            if c == '(' or (word_start and (i + 1 == n or line[i + 1] in ' \t')):
                state['depth'] += 1
        elif c in ')}':
            if c == ')' or word_start:
                state['depth'] -= 1
        if word_start and c.isalpha():
            m = re.match(r'[A-Za-z]+', line[i:])
            word = m.group(0)
            after = line[i + len(word):i + len(word) + 1]
            if after in ('', ' ', '\t', ';'):
                if word in ('if', 'for', 'while', 'until', 'case'):
                    state['depth'] += 1
                elif word in ('fi', 'done', 'esac'):
                    state['depth'] -= 1
            i += len(word)
            word_start = False
            continue
        word_start = c in ' \t;&|()'
        i += 1
    state['cont'] = False
    return state


def split_commands(block):
    """The block's commands; `# =>` lines attach to the command right above them."""
    commands = []
    current = None
    state = dict(quote=None, depth=0, heredocs=[], cont=False)
    heredoc = None
    for number, text in block.lines:
        if heredoc is not None:
            current.lines.append((number, text))
            if text.strip() == heredoc:
                heredoc = None
                if state['heredocs']:
                    heredoc = state['heredocs'].pop(0)
            continue
        inside = state['quote'] or state['depth'] > 0 or state['cont']
        stripped = text.strip()
        if not inside and (stripped == '# =>' or stripped.startswith('# => ')):
            target = commands[-1] if commands else None
            if target is None:
                raise ValueError('line %d: "# =>" with no command above it' % number)
            target.expected.append((number, stripped[5:] if len(stripped) > 4 else ''))
            continue
        if not inside:
            if not stripped or stripped.startswith('#'):
                continue
            if current is not None and current.expected == [] and commands and commands[-1] is current:
                pass
            current = Command()
            commands.append(current)
        current.lines.append((number, text))
        _scan(text, state)
        if state['heredocs']:
            heredoc = state['heredocs'].pop(0)
    if state['quote'] or state['depth'] != 0 or heredoc is not None:
        raise ValueError('the block does not end where its last command does (open quote, bracket or heredoc)')
    return commands


# ---------------------------------------------------------------------------------------------
# Masking volatile values and comparing outputs.

MASKS = [
    (re.compile(r'lst_[0-9a-f]{16,}'), 'lst_<token>'),
    (re.compile(r'whsec_[A-Za-z0-9+/=]+'), 'whsec_<secret>'),
    (re.compile(r'wh_[0-9a-f]{6,}'), 'wh_<id>'),
    (re.compile(r'(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])'), '<sha256>'),
    (re.compile(r'(?<![0-9a-f])[0-9a-f]{40}(?![0-9a-f])'), '<commit>'),
    (re.compile(r'(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])'), '<id>'),
    (re.compile(r'(?<![0-9a-f])[0-9a-f]{16}(?![0-9a-f])'), '<request-id>'),
    (re.compile(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)'), '<time>'),
    (re.compile(r'(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT'), '<date>'),
    (re.compile(r'(127\.0\.0\.1|localhost|\[::1\]):\d+'), r'\1:<port>'),
]


def mask(text):
    for pattern, replacement in MASKS:
        text = pattern.sub(replacement, text)
    return text


def normalise(text):
    lines = [line.rstrip() for line in text.replace('\r\n', '\n').split('\n')]
    while lines and lines[-1] == '':
        lines.pop()
    return lines


ABBREVIATED = re.compile(r'(?<![0-9A-Za-z])[0-9a-f]{4,}\.\.\.')


def matches(expected, actual):
    """Whether the actual lines match the expected ones (`...` wildcards).

    An id shortened with `...` (`5c53dd...`) is a wildcard as a whole."""
    parts = []
    for line in expected:
        line = ABBREVIATED.sub('...', line)
        if line.strip() == '...':
            parts.append(r'(?:[^\n]*\n)*?')
        else:
            pieces = [re.escape(p) for p in line.split('...')]
            parts.append('[^\n]*'.join(pieces) + r'\n')
    pattern = ''.join(parts)
    subject = ''.join(line + '\n' for line in actual)
    return re.fullmatch(pattern, subject) is not None


# ---------------------------------------------------------------------------------------------
# The server and the blocks.

class Server:
    def __init__(self, binary, folder, log):
        self.folder = folder
        self.log = open(log, 'w')
        env = clean_env()
        env['RUST_LOG'] = 'warn'
        self.process = subprocess.Popen(
            [binary, 'serve', '--listen', '127.0.0.1:0'], cwd=folder, env=env,
            stdout=subprocess.PIPE, stderr=self.log, text=True, start_new_session=True)
        self.token = None
        self.url = None
        deadline = time.time() + 60
        while time.time() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            m = re.search(r'(lst_[0-9a-f]+)', line)
            if 'admin token' in line and m:
                self.token = m.group(1)
            m = re.match(r'locstore listening on (http://\S+)', line)
            if m:
                self.url = m.group(1)
                break
        if not self.url or not self.token:
            self.stop()
            raise RuntimeError('the server did not start (see %s)' % log)

    def stop(self):
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.log.close()


def clean_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith('LOCSTORE_')}
    env['NO_PROXY'] = env['no_proxy'] = '127.0.0.1,localhost'
    for name in ('http_proxy', 'https_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY'):
        env.pop(name, None)
    env['GIT_AUTHOR_NAME'] = env['GIT_COMMITTER_NAME'] = 'Docs Example'
    env['GIT_AUTHOR_EMAIL'] = env['GIT_COMMITTER_EMAIL'] = 'docs@example.com'
    env['GIT_CONFIG_NOSYSTEM'] = '1'
    env['LC_ALL'] = 'C.UTF-8'
    env['TERM'] = 'dumb'
    return env


def shell_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


SESSION_SAVE = r"""
__save() {
  __s=$?
  echo "$__n $__s" > %(status)s
  pwd > %(pwd)s
  {
    export -p | grep -vE '^declare -[-a-zA-Z]+ (_|SHLVL|PWD|OLDPWD)=' || true
    for __v in $(compgen -v); do
      case "$__base" in *" $__v "*) continue ;; esac
      case "$__v" in __*|FUNCNAME|BASH_*|PIPESTATUS|COLUMNS|LINES|COMP_*|READLINE_*|EPOCH*|RANDOM|SRANDOM|SECONDS|LINENO|BASHPID|GROUPS|DIRSTACK|HIST*|OPTARG|OPTIND|OPTERR|REPLY|_) continue ;; esac
      declare -p "$__v" 2>/dev/null | grep -E '^declare -[-aA]+ ' || true
    done
  } > %(env)s
}
trap __save EXIT
"""


def build_script(commands, outdir, session):
    """A bash script that runs the commands, each one's stdout and stderr to files of its own.

    It starts from the session the block before left (its folder and variables) and saves
    the session it leaves, as a reader's terminal would carry them from block to block."""
    out = ['set -e -o pipefail', '__base=" $(compgen -v | tr \'\\n\' \' \') "']
    if session:
        out.append('cd %s' % shell_quote(session[0]))
        out.append('. %s' % shell_quote(session[1]))
    out.append(SESSION_SAVE % dict(status=shell_quote(os.path.join(outdir, 'status')),
                                   pwd=shell_quote(os.path.join(outdir, 'pwd')),
                                   env=shell_quote(os.path.join(outdir, 'env'))))
    for n, command in enumerate(commands):
        out.append('__n=%d' % n)
        out.append('{')
        out.extend(text for _, text in command.lines)
        out.append('} > %s 2> %s' % (shell_quote(os.path.join(outdir, '%d.out' % n)),
                                     shell_quote(os.path.join(outdir, '%d.err' % n))))
    out.append('__n=done')
    return '\n'.join(out) + '\n'


def read(path):
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            return f.read()
    except FileNotFoundError:
        return ''


def indent(text, prefix='      '):
    return '\n'.join(prefix + line for line in text.split('\n'))


def run_block(block, env, workdir, scratch, groups, session):
    """Runs one block; returns None when it passed, else the reason.

    session: [folder, file of variables] the block starts from; updated to what it leaves."""
    try:
        commands = split_commands(block)
    except ValueError as e:
        return str(e)
    if not commands:
        return None
    outdir = tempfile.mkdtemp(dir=scratch)
    script = build_script(commands, outdir, session)
    try:
        process = subprocess.Popen(['bash', '-c', script], cwd=workdir, env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True, start_new_session=True)
        groups.append(process.pid)
        _, stderr = process.communicate(timeout=BLOCK_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return 'timed out after %d s' % BLOCK_TIMEOUT
    status = read(os.path.join(outdir, 'status')).split()
    folder = read(os.path.join(outdir, 'pwd')).strip()
    if folder and os.path.exists(os.path.join(outdir, 'env')):
        session[:] = [folder, os.path.join(outdir, 'env')]
    failed_at = None
    if status and status[0] != 'done':
        failed_at = int(status[0])
    elif process.returncode != 0:
        return 'bash exited with %d:\n%s' % (process.returncode, indent(stderr.strip()))
    problems = []
    for n, command in enumerate(commands):
        if failed_at is not None and n > failed_at:
            break
        stdout = read(os.path.join(outdir, '%d.out' % n))
        err = read(os.path.join(outdir, '%d.err' % n))
        first = command.lines[0][0]
        if failed_at == n:
            problems.append('line %d: the command exited with status %s\n%s%s' % (
                first, status[1] if len(status) > 1 else '?',
                indent('stdout: ' + stdout.strip()) + '\n' if stdout.strip() else '',
                indent('stderr: ' + err.strip()) if err.strip() else indent('(no stderr)')))
            break
        if SHOW:
            print('  %s:%d' % (block.path, first))
            for line in normalise(stdout):
                print('  # => ' + line)
        if command.expected:
            want = [mask(text) for _, text in command.expected]
            got = [mask(line) for line in normalise(stdout)]
            if not matches(want, got):
                problems.append('line %d: the output does not match the "# =>" lines %d-%d\n%s\n%s' % (
                    first, command.expected[0][0], command.expected[-1][0],
                    indent('expected:\n' + indent('\n'.join(text for _, text in command.expected), '  ')),
                    indent('actual:\n' + indent('\n'.join(normalise(stdout)) or '(nothing)', '  '))))
    return '\n'.join(problems) if problems else None


def run_file(path, shown, binary, results, scratch_root):
    blocks = read_blocks(path, shown)
    if not blocks:
        return
    base = tempfile.mkdtemp(prefix='docs-', dir=scratch_root)
    workdir = os.path.join(base, 'work')
    scratch = os.path.join(base, 'scratch')
    os.makedirs(workdir)
    os.makedirs(scratch)
    try:
        server = Server(binary, workdir, os.path.join(base, 'server.log'))
    except RuntimeError as e:
        for block in blocks:
            report(results, block, str(e))
        return
    env = clean_env()
    env.update(B=server.url, TOKEN=server.token, LOCSTORE_TOKEN=server.token,
               DATA=os.path.join(workdir, 'locstore-data'), HOME=os.path.join(base, 'home'),
               PATH=os.path.dirname(os.path.abspath(binary)) + os.pathsep + os.environ.get('PATH', ''))
    os.makedirs(env['HOME'])
    groups = []
    session = []
    try:
        for block in blocks:
            report(results, block, run_block(block, env, workdir, scratch, groups, session))
    finally:
        for pgid in groups:
            try:
                os.killpg(pgid, signal.SIGTERM)
            except (ProcessLookupError, PermissionError):
                pass
        server.stop()
        shutil.rmtree(base, ignore_errors=True)


def report(results, block, problem):
    where = '%s:%d%s' % (block.path, block.line, ' (setup)' if block.hidden else '')
    if problem is None:
        print('ok %s' % where, flush=True)
        results.append((where, None))
    else:
        print('FAIL %s: %s' % (where, problem), flush=True)
        results.append((where, problem))


# ---------------------------------------------------------------------------------------------
# Links.

LINK = re.compile(r'(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r'[^\w\- ]', '', s)
    return s.replace(' ', '-')


def anchors(path):
    found = set()
    counts = {}
    inside = False
    for line in read(path).split('\n'):
        if FENCE.match(line):
            inside = not inside
            continue
        if inside:
            continue
        m = re.match(r'^#{1,6}\s+(.*)$', line)
        if m:
            base = slug(m.group(1))
            k = counts.get(base, 0)
            found.add(base if k == 0 else '%s-%d' % (base, k))
            counts[base] = k + 1
    return found


def check_links(path, shown, results):
    inside = False
    for number, line in enumerate(read(path).split('\n'), 1):
        if FENCE.match(line):
            inside = not inside
            continue
        if inside:
            continue
        for target in LINK.findall(re.sub(r'`[^`]*`', '', line)):
            if re.match(r'^[a-z]+:', target):
                continue
            file_part, _, fragment = target.partition('#')
            here = os.path.dirname(os.path.abspath(path))
            dest = os.path.normpath(os.path.join(here, file_part)) if file_part else os.path.abspath(path)
            where = '%s:%d' % (shown, number)
            if os.path.relpath(dest, ROOT).startswith('..'):
                problem = 'the link %s leaves the repository' % target
            elif not os.path.exists(dest):
                problem = 'the link %s names no file' % target
            elif fragment and dest.endswith('.md') and fragment not in anchors(dest):
                problem = 'the link %s names no heading of %s' % (target, os.path.relpath(dest, ROOT))
            else:
                continue
            print('FAIL %s: %s' % (where, problem), flush=True)
            results.append((where, problem))


# ---------------------------------------------------------------------------------------------

def default_files():
    files = [os.path.join(ROOT, 'README.md')]
    files += sorted(glob.glob(os.path.join(ROOT, 'docs', '**', '*.md'), recursive=True))
    return files


def run(files, binary, show_root=ROOT, links=True):
    results = []
    scratch_root = tempfile.mkdtemp(prefix='locstore-docs-')
    try:
        for path in files:
            shown = os.path.relpath(os.path.abspath(path), show_root)
            if links:
                check_links(path, shown, results)
            run_file(path, shown, binary, results, scratch_root)
    finally:
        shutil.rmtree(scratch_root, ignore_errors=True)
    failed = sum(1 for _, problem in results if problem)
    passed = len(results) - failed
    print('docs examples: %d passed, %d failed' % (passed, failed), flush=True)
    return results, failed


def self_test(binary):
    """Breaks one expected line and one command in a copy of README.md; both must be reported."""
    source = os.path.join(ROOT, 'README.md')
    blocks = read_blocks(source, 'README.md')
    with_output = [b for b in blocks for c in split_commands(b) if c.expected]
    if len(blocks) < 2 or not with_output:
        print('self-test: README.md needs two runnable blocks, one with "# =>" lines')
        return 1
    lines = read(source).split('\n')
    # An expected line of the first block that shows output (the state stays as it was).
    broken_output = with_output[0]
    command = [c for c in split_commands(broken_output) if c.expected][0]
    number = command.expected[0][0]
    lines[number - 1] = lines[number - 1] + ' (broken on purpose)'
    # The first command of the last other block: a program that does not exist.
    broken_command = [b for b in blocks if b is not broken_output][-1]
    # (not one of a `&&` or `||` list, where bash -e would let a failure pass).
    first = next(c.lines[0][0] for c in split_commands(broken_command)
                 if '&&' not in c.lines[0][1] and '||' not in c.lines[0][1])
    lines[first - 1] = re.sub(r'^(\s*)(\S+)', r'\1no-such-program-\2', lines[first - 1], count=1)
    folder = tempfile.mkdtemp(prefix='locstore-docs-self-test-')
    try:
        copy = os.path.join(folder, 'README.md')
        with open(copy, 'w', encoding='utf-8') as f:
            f.write('\n'.join(lines))
        print('self-test: broke README.md:%d (an expected line) and README.md:%d (a command)' % (number, first))
        results, failed = run([copy], binary, show_root=folder, links=False)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    problems = dict(results)
    want_output = 'README.md:%d' % broken_output.line
    want_command = 'README.md:%d' % broken_command.line
    ok_output = problems.get(want_output) and ('does not match the "# =>" lines %d-' % number) in problems[want_output]
    ok_command = problems.get(want_command) and ('line %d: the command exited with status 127' % first) in problems[want_command]
    others = [where for where, problem in results if problem and where not in (want_output, want_command)]
    if others:
        print('self-test: note: %s failed as well' % ', '.join(others))
    if ok_output and ok_command:
        print('self-test: passed (the broken expected line and the broken command were both reported)')
        return 0
    print('self-test: FAILED: %s%s' % ('' if ok_output else 'the broken expected line was not reported; ',
                                     '' if ok_command else 'the broken command was not reported'))
    return 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--bin', required=True, help='the locstore binary to test')
    parser.add_argument('--self-test', action='store_true', help='check that broken examples are reported')
    parser.add_argument('--show', action='store_true',
                        help="print every command's output as # => lines (to write or update a doc)")
    parser.add_argument('files', nargs='*', help='markdown files (default: README.md and docs/**/*.md)')
    args = parser.parse_args()
    global SHOW
    SHOW = args.show
    binary = os.path.abspath(args.bin)
    if not os.access(binary, os.X_OK):
        parser.error('%s is not an executable' % args.bin)
    if args.self_test:
        sys.exit(self_test(binary))
    files = args.files or default_files()
    _, failed = run(files, binary)
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
