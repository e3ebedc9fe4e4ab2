#!/usr/bin/env bash
# The last release's published jars, built from this repository's own history (nothing downloaded).
#
#   .release/last-release.sh [--link DIR]
#
# Reads the last entry of RELEASES ("<version> <full commit sha>"), builds that commit's published
# modules (those whose POM sets warden.publish.phase to "package") with `mvn -B -o -q package` in a
# copy of the commit (git archive), and caches their jars by commit under
# ${WARDEN_RELEASE_CACHE:-~/.cache/warden/releases}/<version>/<sha>/<artifactId>.jar. Prints the jars'
# paths; with --link DIR, copies them to DIR/<artifactId>.jar for the compatibility check (japicmp)
# and writes DIR/release.txt. The build runs it once, before the modules (see the parent POM).
#
# With no release in RELEASES yet, says so and succeeds with nothing to compare: with --link, each
# published module of this tree gets an empty jar in DIR (an API with nothing in it, so everything is
# new), as does a module that the last release did not have.
# A recorded release whose commit is not in the history fails, loudly: in a shallow clone it first
# tries `git fetch --unshallow` when there is a remote. It never skips.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
link=""
if [ "${1:-}" = "--link" ]; then
	link="${2:?--link needs a directory}"
fi

fail() {
	echo "last-release: ERROR: $*" >&2
	exit 1
}

releases="$root/RELEASES"
[ -f "$releases" ] || fail "$releases is missing: it records the releases (see docs/release-artifacts.md)."

# The artifactId of a module directory's POM (its own, not its parent's).
artifact_id() {
	sed -n '/<parent>/,/<\/parent>/d; s|^  <artifactId>\(.*\)</artifactId>|\1|p' "$1/pom.xml" | head -n 1
}

# The published modules (directories) of a source tree: those that set warden.publish.phase to package.
published_modules() {
	local pom
	for pom in "$1"/*/pom.xml; do
		if grep -q '<warden.publish.phase>package</warden.publish.phase>' "$pom"; then
			basename "$(dirname "$pom")"
		fi
	done
}

# With --link: an empty jar for each published module of this tree that has no jar of the release.
link_empty_baselines() {
	local module artifact empty=""
	[ -n "$link" ] || return 0
	for module in $(published_modules "$root"); do
		artifact="$(artifact_id "$root/$module")"
		if [ ! -f "$link/$artifact.jar" ]; then
			echo "last-release: $artifact: $1; compared with an empty API (everything in it is new)."
			if [ -z "$empty" ]; then
				empty="$link/.empty"
				mkdir -p "$empty"
				jar --create --file "$empty/empty.jar" -C "$empty" .
			fi
			cp "$empty/empty.jar" "$link/$artifact.jar"
		fi
	done
	[ -z "$empty" ] || rm -rf "$empty"
}

entry="$(grep -v -E '^[[:space:]]*(#|$)' "$releases" | tail -n 1 || true)"
if [ -n "$link" ]; then
	rm -rf "$link"
	mkdir -p "$link"
fi
if [ -z "$entry" ]; then
	echo "last-release: no release recorded in RELEASES yet: nothing to compare with."
	link_empty_baselines "no release yet"
	exit 0
fi

read -r version sha extra <<< "$entry"
[ -z "${extra:-}" ] || fail "RELEASES line '$entry' has more than '<version> <sha>'."
[[ "$sha" =~ ^[0-9a-f]{40}$ ]] || fail "RELEASES line '$entry': '$sha' is not a full commit sha."

has_commit() {
	git -C "$root" cat-file -e "$1^{commit}" 2>/dev/null
}
if ! has_commit "$sha"; then
	if [ "$(git -C "$root" rev-parse --is-shallow-repository)" = "true" ]; then
		remote="$(git -C "$root" remote | head -n 1)"
		if [ -n "$remote" ]; then
			echo "last-release: release $version ($sha) is not in this shallow clone: fetching the history from $remote."
			git -C "$root" fetch --unshallow "$remote" >&2 || fail "git fetch --unshallow $remote failed."
		fi
	fi
	has_commit "$sha" || fail "release $version's commit $sha is not in this clone's history \
(shallow clone? run 'git fetch --unshallow'). The compatibility check needs it: it is not skipped."
fi

cache="${WARDEN_RELEASE_CACHE:-$HOME/.cache/warden/releases}/$version/$sha"
if [ ! -f "$cache/jars.txt" ]; then
	echo "last-release: building release $version ($sha) into $cache"
	mkdir -p "$(dirname "$cache")"
	work="$(mktemp -d "$(dirname "$cache")/build.XXXXXX")"
	trap 'rm -rf "$work"' EXIT
	mkdir "$work/src" "$work/jars"
	git -C "$root" archive --format=tar "$sha" | tar -x -C "$work/src"
	# The release's published modules: those that set warden.publish.phase to package.
	mapfile -t modules < <(published_modules "$work/src")
	[ "${#modules[@]}" -gt 0 ] || fail "release $version ($sha) has no published module (warden.publish.phase)."
	# package only (nothing installed in ~/.m2); no tests, no javadoc, and no compatibility check
	# of its own (which would build the release before it).
	(cd "$work/src" && mvn -B -o -q package -pl "$(IFS=,; echo "${modules[*]}")" -am \
		-DskipTests -Dmaven.test.skip=true -Dwarden.publish.phase=none -Dwarden.lastRelease.skip=true \
		> "$work/build.log" 2>&1) || {
		tail -n 40 "$work/build.log" >&2
		fail "building release $version ($sha) failed (log above; offline: a plugin or dependency missing from ~/.m2?)."
	}
	: > "$work/jars.txt"
	for module in "${modules[@]}"; do
		artifact="$(artifact_id "$work/src/$module")"
		jar="$(ls "$work/src/$module/target/$artifact-$version.jar" 2>/dev/null || true)"
		[ -n "$jar" ] || fail "release $version ($sha): no $module/target/$artifact-$version.jar after the build."
		cp "$jar" "$work/jars/$artifact.jar"
		echo "$artifact.jar" >> "$work/jars.txt"
	done
	rm -rf "$cache"
	mkdir -p "$cache"
	mv "$work/jars"/* "$work/jars.txt" "$cache/"
fi

echo "last-release: release $version ($sha):"
while read -r name; do
	[ -f "$cache/$name" ] || fail "cached $cache/$name is missing: delete $cache and build again."
	echo "  $cache/$name"
	if [ -n "$link" ]; then
		cp "$cache/$name" "$link/$name"
	fi
done < "$cache/jars.txt"
if [ -n "$link" ]; then
	echo "$version $sha" > "$link/release.txt"
fi
link_empty_baselines "not in release $version"
