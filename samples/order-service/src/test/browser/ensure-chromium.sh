#!/usr/bin/env bash
# Makes sure the headless browser of DashboardBrowserTests is on the machine: Debian's chromium and
# chromium-driver (/usr/bin/chromium, /usr/bin/chromedriver). Installs them when they are missing
# and this runs as root with apt-get, as in CI; otherwise says what to install.
set -uo pipefail

if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
  echo "Installing chromium and chromium-driver for the dashboard's browser test"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -q chromium chromium-driver > /tmp/warden-chromium-install.log 2>&1; then
    apt-get update -q >> /tmp/warden-chromium-install.log 2>&1
    apt-get install -y -q chromium chromium-driver >> /tmp/warden-chromium-install.log 2>&1 \
      || { echo "apt-get could not install chromium (see /tmp/warden-chromium-install.log)" >&2; exit 1; }
  fi
  exit 0
fi
echo "WARNING: the dashboard's browser test needs Debian's chromium and chromium-driver" \
  "(apt-get install chromium chromium-driver); it fails without them." >&2
exit 0
