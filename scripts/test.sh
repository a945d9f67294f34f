#!/usr/bin/env bash
# Runs the whole test suite on a fresh machine: installs what the tests need, then cargo test.
#
#   bash scripts/test.sh
#
# After cargo test it runs the docs' examples: scripts/docs_examples.py starts the binary cargo
# test built and runs every `sh run` block of README.md and docs/ against it, checking their
# `# =>` lines and relative links, then its self-test proves that a broken example fails
# (docs/testing.md). It needs only python3, curl and git.
#
# What it installs, and why:
# - pkg-config and libssl-dev, if missing: the build links the system's OpenSSL (https remotes).
# - git: the tests read repositories back with the git CLI (rev-list, status, fsck).
# - aapt (aapt2) and android-framework-res: Android's own resource compiler, to prove that
#   exported strings.xml files compile, link and read back unchanged.
# - a Python venv (scripts/test-requirements.txt) with openstep_plist (an independent reader
#   of Apple .strings files; Python's own csv and json modules read the other formats back),
#   schemathesis (scripts/fuzz.sh fuzzes the live server from its own OpenAPI document) and
#   openapi-python-client (scripts/client.sh generates a client and makes a round trip),
#   standardwebhooks (the reference library that verifies webhook signatures), and
#   string-catalog's pydantic models of Xcode String Catalogs (scripts/test-requirements-
#   nodeps.txt, without its translation client's dependencies), and polib (PO files).
# - gettext: `msgfmt --check` proves the PO export.
# - libxml2-utils (xmllint) and the XLIFF 1.2 strict and 2.0 schemas as Debian ships them (in
#   php-symfony-translation, unpacked into target/xliff-schemas without installing PHP): every
#   XLIFF export is validated against its version's schema; translate-toolkit (in the venv)
#   reads the values back.
# - ruby and ruby-i18n: Ruby's i18n gem answers I18n.t(key, count:) from the Rails YAML export;
#   Psych (Ruby's YAML reader) reads the real apps' locale files (tests/tools/read_yaml.rb), as
#   the venv's polib, translate-toolkit and openstep_plist read the other formats'
#   (tests/tools/read_texts.py) for tests/api/real_apps.rs.
# - chromium, and playwright-core from npm (tests/browser): scripts/browser.sh drives
#   Swagger UI at /docs in a real headless browser.
# - FormatJS's ICU MessageFormat parser from npm (tests/tools): reads the CSV export's plural
#   cells back; and i18next itself, which answers t(key, {count}) from the i18next export.
# - The platforms' own formatters, for the proof that a text converted to another platform's
#   placeholders formats as the original does (tests/api/placeholder_pairs.rs, drivers in
#   tests/tools/): default-jdk-headless (Java's java.util.Formatter, Android's String.format,
#   run as `java Fmt.java`); gobjc, libgnustep-base-dev and libffi-dev (GNUstep's Foundation:
#   a driver calling +[NSString stringWithFormat:] through libffi with each argument's C type,
#   compiled by the test); FormatJS's intl-messageformat from npm (tests/tools, ICU and ARB
#   texts); i18next's t(), Ruby's I18n.interpolate (ruby-i18n) and Python's % and str.format,
#   installed for the readers above.
# - nginx and fcgiwrap: a smart HTTP git remote (git http-backend) with basic auth, started by
#   tests/api/remote_http.rs on a loopback port, over HTTP and over HTTPS with a certificate
#   that the openssl tool makes for the test. (git daemon, another remote of the tests, comes
#   with git.)
# - openssh-server and openssh-client: an SSH git remote (sshd on a loopback port with keys
#   made by ssh-keygen for the test), started by tests/api/remote_ssh.rs.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
# The build: git2 links the system's OpenSSL for https:// remotes (on the machine image).
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
pkg-config --exists openssl 2>/dev/null || need_apt+=(libssl-dev)
command -v git >/dev/null 2>&1 || need_apt+=(git)
command -v curl >/dev/null 2>&1 || need_apt+=(curl)
command -v aapt2 >/dev/null 2>&1 || [ -x /usr/lib/android-sdk/build-tools/debian/aapt2 ] || need_apt+=(aapt)
[ -f /usr/share/android-framework-res/framework-res.apk ] || need_apt+=(android-framework-res)
python3 -c 'import venv' >/dev/null 2>&1 || need_apt+=(python3-venv)
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
command -v npm >/dev/null 2>&1 || need_apt+=(npm)
[ -x /usr/sbin/nginx ] || need_apt+=(nginx-light)
[ -x /usr/sbin/fcgiwrap ] || need_apt+=(fcgiwrap)
command -v openssl >/dev/null 2>&1 || need_apt+=(openssl)
command -v msgfmt >/dev/null 2>&1 || need_apt+=(gettext)
command -v xmllint >/dev/null 2>&1 || need_apt+=(libxml2-utils)
ruby -e 'require "i18n"' >/dev/null 2>&1 || need_apt+=(ruby ruby-i18n)
[ -x /usr/sbin/sshd ] || need_apt+=(openssh-server)
command -v ssh-keygen >/dev/null 2>&1 || need_apt+=(openssh-client)
command -v javac >/dev/null 2>&1 || need_apt+=(default-jdk-headless)
[ -n "$(find /usr/lib/gcc -path '*/include/objc/objc.h' 2>/dev/null | head -1)" ] || need_apt+=(gobjc)
command -v gnustep-config >/dev/null 2>&1 && [ -f /usr/include/GNUstep/Foundation/Foundation.h ] \
  || need_apt+=(libgnustep-base-dev)
[ -n "$(find /usr/include -name ffi.h 2>/dev/null | head -1)" ] || need_apt+=(libffi-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "scripts/test.sh: installing ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

venv=target/test-venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import openstep_plist, schemathesis, openapi_python_client, standardwebhooks, string_catalog.models, polib, translate.storage.xliff2' >/dev/null 2>&1; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r scripts/test-requirements.txt
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r scripts/test-requirements-nodeps.txt
fi
export LOCSTORE_TEST_PYTHON="$PWD/$venv/bin/python"

# The XLIFF schemas, their import of xml.xsd pointed at the copy beside them (no network).
schemas=target/xliff-schemas
if [ ! -f "$schemas/xliff-core-2.0.xsd" ]; then
  work=$(mktemp -d)
  (cd "$work" && { apt-get download php-symfony-translation >/dev/null 2>&1 \
    || { apt-get update -qq && apt-get download php-symfony-translation >/dev/null 2>&1; }; })
  dpkg -x "$work"/php-symfony-translation_*.deb "$work/unpacked"
  mkdir -p "$schemas"
  cp "$work"/unpacked/usr/share/php/Symfony/Component/Translation/Resources/schemas/*.xsd "$schemas/"
  sed -i -e 's|schemaLocation="http://www.w3.org/2001/xml.xsd"|schemaLocation="xml.xsd"|' \
    -e 's|schemaLocation="informativeCopiesOf3rdPartySchemas/w3c/xml.xsd"|schemaLocation="xml.xsd"|' \
    "$schemas"/xliff-core-*.xsd
  rm -rf "$work"
fi
export LOCSTORE_XLIFF_SCHEMAS="$PWD/$schemas"

if [ ! -d tests/browser/node_modules/playwright-core ]; then
  (cd tests/browser && npm ci --no-audit --no-fund --silent)
fi
if [ ! -d tests/tools/node_modules/@formatjs/icu-messageformat-parser ] || [ ! -d tests/tools/node_modules/i18next ] \
  || [ ! -d tests/tools/node_modules/intl-messageformat ]; then
  (cd tests/tools && npm ci --no-audit --no-fund --silent)
fi

cargo test --locked "$@"
# The examples of README.md and docs/, against the binary cargo test built (docs/testing.md).
python3 scripts/docs_examples.py --bin target/debug/locstore
python3 scripts/docs_examples.py --self-test --bin target/debug/locstore
# The benchmarks must keep building; they are run by hand (see docs/performance.md), never here.
cargo bench --locked --no-run
bash scripts/fuzz.sh
bash scripts/client.sh
bash scripts/browser.sh
