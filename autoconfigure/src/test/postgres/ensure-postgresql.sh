#!/usr/bin/env bash
# Makes sure the PostgreSQL server of the outbox's PostgreSQL tests is on the machine: Debian's
# postgresql package (/usr/lib/postgresql/<n>/bin). Installs it when it is missing and this runs as
# root with apt-get, as in CI; otherwise says what to install.
set -uo pipefail

if [ -n "${WARDEN_POSTGRES_BIN:-}" ] || ls /usr/lib/postgresql/*/bin/initdb > /dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
  echo "Installing postgresql for the outbox's PostgreSQL tests"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -q postgresql > /tmp/warden-postgresql-install.log 2>&1; then
    apt-get update -q >> /tmp/warden-postgresql-install.log 2>&1
    apt-get install -y -q postgresql >> /tmp/warden-postgresql-install.log 2>&1 \
      || { echo "apt-get could not install postgresql (see /tmp/warden-postgresql-install.log)" >&2; exit 1; }
  fi
  exit 0
fi
echo "WARNING: the outbox's PostgreSQL tests need Debian's postgresql package" \
  "(apt-get install postgresql); they fail without it." >&2
exit 0
