#!/usr/bin/env bash
# Shows that the compatibility check works: in a throwaway worktree of HEAD (under target/, with its
# own release cache), makes a release commit of the current version, records it in RELEASES with the
# next snapshot version, and builds warden-spring-boot-autoconfigure twice:
#   1. unchanged: the check must pass;
#   2. with a public method of the public API removed (ScheduleResult.stored()): the build must fail
#      with japicmp's METHOD_REMOVED.
# Exits 0 when both hold. Nothing of it stays in the repository (the commits are on a detached
# worktree, removed at the end). Takes a few minutes: it is not part of `mvn -B verify`.
#
#   .release/compat-selftest.sh
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
work="$root/target/compat-selftest"
cache="$root/target/compat-selftest-cache"

fail() {
	echo "compat-selftest: FAILED: $*" >&2
	exit 1
}
cleanup() {
	git -C "$root" worktree remove --force "$work" > /dev/null 2>&1 || rm -rf "$work"
	git -C "$root" worktree prune
}

cleanup
mkdir -p "$root/target"
git -C "$root" worktree add --quiet --detach "$work" HEAD
trap cleanup EXIT
cd "$work"

snapshot="$(sed -n '/<parent>/,/<\/parent>/d; s|^  <version>\(.*\)</version>|\1|p' pom.xml | head -n 1)"
[[ "$snapshot" == *-SNAPSHOT ]] || fail "the root POM's version '$snapshot' is not a snapshot."
release="${snapshot%-SNAPSHOT}"
IFS=. read -r major minor _ <<< "$release"
next="$major.$((minor + 1)).0-SNAPSHOT"
mapfile -t poms < <(git ls-files '*pom.xml')
commit() {
	GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z \
		git -c user.name=compat-selftest -c user.email=compat-selftest@invalid commit --quiet -am "$1"
}

sed -i "s/$snapshot/$release/g" "${poms[@]}"
commit "Release $release (self-test)"
echo "$release $(git rev-parse HEAD)" >> RELEASES
sed -i "s/>$release</>$next</g" "${poms[@]}"
commit "$next (self-test)"
echo "compat-selftest: release $release recorded as $(git rev-parse HEAD~1); now $next."

build() {
	WARDEN_RELEASE_CACHE="$cache" mvn -B -o -pl autoconfigure -am package \
		-DskipTests -Dmaven.test.skip=true > "$work/$1.log" 2>&1
}

echo "compat-selftest: 1. unchanged API: the build must pass."
build unchanged || { tail -n 30 "$work/unchanged.log" >&2; fail "the unchanged API did not pass (log above)."; }
echo "compat-selftest:    passed."

echo "compat-selftest: 2. dev.warden.task.ScheduleResult.stored() removed: the build must fail."
source=autoconfigure/src/main/java/dev/warden/task/ScheduleResult.java
grep -q 'public boolean stored()' "$source" || fail "$source has no stored() to remove: choose another method."
sed -i 's/public boolean stored()/boolean storedRemoved()/' "$source"
if build broken; then
	fail "the build passed with a public method removed."
fi
grep -E 'incompatibilit' "$work/broken.log" | sed 's/^/compat-selftest:    /'
grep -q 'ScheduleResult.stored():METHOD_REMOVED' "$work/broken.log" \
	|| { tail -n 30 "$work/broken.log" >&2; fail "the build failed, but not on the removed method (log above)."; }
echo "compat-selftest: the check passes an unchanged API and fails a removed public method."
