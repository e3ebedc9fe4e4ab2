#!/usr/bin/env bash
# Makes sure the server matrix tests have Debian's redis-server 7.0 beside the bundled 6.2: the
# package (and the two libraries it needs) is downloaded and unpacked, not installed, under
# ${WARDEN_REDIS_CACHE:-~/.cache/warden}/redis-7.0, so that the rest of the suite keeps running on
# the server it runs on otherwise. When apt-get cannot download it, says so; the tests then fail
# naming this script.
set -uo pipefail

dir="${WARDEN_REDIS_CACHE:-$HOME/.cache/warden}/redis-7.0"
if [ -x "$dir/redis-server" ] && "$dir/redis-server" --version > /dev/null 2>&1; then
  exit 0
fi
if ! command -v apt-get > /dev/null || ! command -v dpkg > /dev/null; then
  echo "WARNING: the server matrix tests need Debian's redis-server 7.0, fetched with apt-get; this machine" \
    "has no apt-get. Put a redis-server 7.0 at $dir/redis-server." >&2
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 0
download() {
  apt-get download redis-server redis-tools liblzf1 libjemalloc2 > "$work/download.log" 2>&1
}
if ! download; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -q > "$work/update.log" 2>&1
  fi
  if ! download; then
    echo "WARNING: apt-get could not download redis-server 7.0 for the server matrix tests:" >&2
    cat "$work/download.log" >&2
    exit 0
  fi
fi
rm -rf "$dir"
mkdir -p "$dir/root"
for package in ./*.deb; do
  dpkg -x "$package" "$dir/root"
done
cat > "$dir/redis-server" <<WRAPPER
#!/bin/sh
LD_LIBRARY_PATH="\$(echo "$dir"/root/usr/lib/*-linux-gnu)" exec "$dir/root/usr/bin/redis-server" "\$@"
WRAPPER
chmod +x "$dir/redis-server"
echo "redis-server for the server matrix tests: $("$dir/redis-server" --version)"
