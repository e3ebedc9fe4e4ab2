#!/usr/bin/env bash
# Checks a staged Maven repository of Warden: every published module is there, complete, and no
# internal module is.
#
#   .release/check-staging.sh [--checksums] REPOSITORY VERSION
#
# Published: warden-parent and warden-bom (POM), and the jar modules below (POM, jar with an
# Automatic-Module-Name, -sources and -javadoc jars). Internal, never there: warden-test-support,
# the samples (and the benchmark), the Boot 3 tests, this check. With --checksums (the release
# profile's deployed repository) every file must have a .sha1 and an .md5 that match it, and gets a
# .sha256 and a .sha512 beside them. The build runs it last (release-check); it fails on the first
# build whose staging misses a piece.
set -euo pipefail

checksums=false
if [ "${1:-}" = "--checksums" ]; then
	checksums=true
	shift
fi
repo="${1:?repository directory}"
version="${2:?version}"

poms=(warden-parent warden-bom)
jars=(warden-spring-boot-autoconfigure warden-spring-boot-starter warden-spring-boot3-starter warden-kotlin warden-test-redis \
	warden-test)
internal=(warden-test-support warden-samples order-service warden-benchmark warden-sample-boot3-invoices \
	warden-boot3-tests warden-release-check)

errors=()
base="$repo/dev/warden"
[ -d "$base" ] || { echo "release-check: ERROR: $base does not exist: nothing was staged." >&2; exit 1; }

# A file name's version part: the version, or for a deployed snapshot its timestamped form.
if [[ "$version" == *-SNAPSHOT ]]; then
	vre="${version%-SNAPSHOT}"
	vre="${vre//./\\.}-(SNAPSHOT|[0-9]{8}\.[0-9]{6}-[0-9]+)"
else
	vre="${version//./\\.}"
fi

# The newest file of artifact $1 with suffix $2 (".pom", ".jar", "-sources.jar", ...), or nothing.
find_file() {
	local dir="$base/$1/$version"
	[ -d "$dir" ] || return 0
	local suffix="${2//./\\.}"
	{ ls "$dir" | grep -E "^$1-$vre$suffix\$" || true; } | sort | tail -n 1 | sed "s|^|$dir/|"
}

check_file() {
	local artifact="$1" suffix="$2" file
	file="$(find_file "$artifact" "$suffix")"
	if [ -z "$file" ]; then
		errors+=("$artifact: no $artifact-$version$suffix in $base/$artifact/$version")
		return
	fi
	if $checksums; then
		local algorithm tool
		for algorithm in sha1 md5; do
			tool="${algorithm}sum"
			if [ ! -f "$file.$algorithm" ]; then
				errors+=("$artifact: no .$algorithm beside $(basename "$file")")
			elif [ "$(tr -d ' \n' < "$file.$algorithm")" != "$($tool "$file" | cut -d' ' -f1)" ]; then
				errors+=("$artifact: $(basename "$file").$algorithm does not match the file")
			fi
		done
		sha256sum "$file" | cut -d' ' -f1 > "$file.sha256"
		sha512sum "$file" | cut -d' ' -f1 > "$file.sha512"
	fi
	if [ "$suffix" = ".jar" ] && ! unzip -p "$file" META-INF/MANIFEST.MF | grep -q '^Automatic-Module-Name: dev\.warden'; then
		errors+=("$artifact: $(basename "$file") has no Automatic-Module-Name in its manifest")
	fi
}

for artifact in "${poms[@]}"; do
	check_file "$artifact" .pom
done
for artifact in "${jars[@]}"; do
	for suffix in .pom .jar -sources.jar -javadoc.jar; do
		check_file "$artifact" "$suffix"
	done
done
for artifact in "${internal[@]}"; do
	if [ -e "$base/$artifact" ]; then
		errors+=("$artifact is internal and must not be published, but is in $base/$artifact")
	fi
done
for dir in "$base"/*/; do
	artifact="$(basename "$dir")"
	case " ${poms[*]} ${jars[*]} ${internal[*]} " in
		*" $artifact "*) ;;
		*) errors+=("$artifact is staged but is neither published nor internal: add it to .release/check-staging.sh") ;;
	esac
done

if [ "${#errors[@]}" -gt 0 ]; then
	echo "release-check: ERROR: the staged repository $repo is not what a release publishes:" >&2
	printf '  - %s\n' "${errors[@]}" >&2
	exit 1
fi
echo "release-check: $repo has warden-parent, warden-bom and, each with POM, jar, sources and javadoc$($checksums && echo ' (with checksums)'), ${jars[*]}; no internal module."
