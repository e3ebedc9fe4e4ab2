#!/usr/bin/env bash
# Makes a release in this repository's history: two commits on the current branch.
#
#   .release/release.sh <version> <next snapshot version>      e.g. 0.2.0 0.3.0-SNAPSHOT
#
# 1. "Release <version>": every POM (and the Boot 3 builds' warden.version) at <version>, the
#    dependency snippets of README.md and docs/*.md at <version>, and CHANGELOG.md's "[Unreleased]" section renamed
#    "[<version>] - <today>" under a new, empty "[Unreleased]".
# 2. "Open <next>": RELEASES records "<version> <sha of commit 1>", and the POMs move to <next>.
# The build then compares every published jar with this release (.release/last-release.sh, japicmp),
# and the mixed-version suite runs against it. Deploying the release's artifacts is separate:
# check out commit 1 and run `mvn -B -Prelease deploy` (see docs/release-artifacts.md).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

version="${1:?usage: release.sh <version> <next snapshot version>}"
next="${2:?usage: release.sh <version> <next snapshot version>}"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "release: '$version' is not a release version (x.y.z)" >&2; exit 1; }
[[ "$next" =~ ^[0-9]+\.[0-9]+\.[0-9]+-SNAPSHOT$ ]] || { echo "release: '$next' is not a snapshot version" >&2; exit 1; }
[ -z "$(git status --porcelain)" ] || { echo "release: the working tree has changes; commit or stash them first" >&2; exit 1; }
current="$(sed -n 's|^  <version>\(.*\)</version>|\1|p' pom.xml | head -n 1)"
[[ "$current" == *-SNAPSHOT ]] || { echo "release: the POMs are at $current, not a snapshot" >&2; exit 1; }
grep -q '^## \[Unreleased\]' CHANGELOG.md || { echo "release: CHANGELOG.md has no [Unreleased] section" >&2; exit 1; }
if grep -q -E "^$version " RELEASES; then
	echo "release: RELEASES records $version already" >&2
	exit 1
fi

set_version() {
	local from="$1" to="$2" pom
	for pom in $(git ls-files '*pom.xml'); do
		sed -i "s|<version>$from</version>|<version>$to</version>|; s|<warden.version>$from</warden.version>|<warden.version>$to</warden.version>|" "$pom"
	done
	if grep -q "<version>$from</version>" $(git ls-files '*pom.xml'); then
		echo "release: a POM still names $from:" >&2
		grep -n "<version>$from</version>" $(git ls-files '*pom.xml') >&2
		exit 1
	fi
}

set_version "$current" "$version"
# Warden's own dependency snippets only: the docs name other libraries' versions too (Jackson's).
sed -i -z -E "s#(<artifactId>warden-[^<]*</artifactId>[[:space:]]*<version>)[0-9]+\.[0-9]+\.[0-9]+(-SNAPSHOT)?(</version>)#\1$version\3#g" \
	README.md docs/*.md
sed -i "s|^## \[Unreleased\]|## [Unreleased]\n\n## [$version] - $(date -u +%Y-%m-%d)|" CHANGELOG.md
git commit -q -am "Release $version"
sha="$(git rev-parse HEAD)"

echo "$version $sha" >> RELEASES
set_version "$version" "$next"
git commit -q -am "Open $next; record the $version release"
echo "release: $version is $sha; the POMs are at $next"
