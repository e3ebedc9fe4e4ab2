#!/usr/bin/env bash
# Checks a staged Maven repository of Warden: every published module is there, complete, no
# internal module is, and no published POM depends on one.
#
#   .release/check-staging.sh [--checksums] REPOSITORY VERSION
#
# Published: warden-parent and warden-bom (POM), and the jar modules below (POM, jar with an
# Automatic-Module-Name, -sources and -javadoc jars). Internal, never there: warden-test-support,
# the samples (and the benchmark), the Boot 3, mixed-version and documentation tests, this check. With --checksums (the release
# profile's deployed repository) every file must have a .sha1 and an .md5 that match it, and gets a
# .sha256 and a .sha512 beside them. Every staged POM may depend (in compile or runtime scope, the
# scopes a user's build resolves; optional ones it does not) only on published modules among
# Warden's artifacts, the scope read from the dependency or else from the dependency management of
# the POM and its staged parents. The build runs it last (release-check); it fails on the first
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
	warden-boot3-tests warden-compat-tests warden-docs warden-release-check)

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

# The dependencies of a POM, one a line: "dependency GROUP ARTIFACT SCOPE OPTIONAL" for those of the
# project and its profiles (not of its plugins), "managed GROUP ARTIFACT SCOPE" for its dependency
# management, and "parent GROUP ARTIFACT". An absent scope or optional is "-".
pom_dependencies() {
	awk '
		{ text = text $0 "\n" }
		END {
			# Comments out, then one tag at a time, with the path of the elements it is in.
			while ((start = index(text, "<!--")) > 0) {
				rest = substr(text, start + 4)
				end = index(rest, "-->")
				text = substr(text, 1, start - 1) ((end > 0) ? substr(rest, end + 3) : "")
			}
			depth = 0
			n = split(text, parts, "<")
			for (i = 2; i <= n; i++) {
				close_at = index(parts[i], ">")
				tag = substr(parts[i], 1, close_at - 1)
				value = substr(parts[i], close_at + 1)
				gsub(/^[ \t\r\n]+|[ \t\r\n]+$/, "", value)
				if (tag ~ /^[?!]/ || tag ~ /\/$/) continue
				if (tag ~ /^\//) {
					name = path[depth]
					if (name == "dependency" || name == "parent") finish(name)
					depth--
					continue
				}
				sub(/[ \t\r\n].*/, "", tag)
				path[++depth] = tag
				if (tag == "dependency" || tag == "parent") { group = "-"; artifact = "-"; scope = "-"; optional = "-" }
				if (depth >= 2 && (path[depth - 1] == "dependency" || path[depth - 1] == "parent")) {
					if (tag == "groupId") group = value
					if (tag == "artifactId") artifact = value
					if (tag == "scope") scope = value
					if (tag == "optional") optional = value
				}
			}
		}
		function finish(name,   where) {
			if (name == "parent" && depth == 2) { print "parent", group, artifact; return }
			if (name != "dependency") return
			where = ""
			for (d = 2; d < depth; d++) where = where "/" path[d]
			if (where == "/dependencies" || where ~ /^\/profiles\/profile\/dependencies$/) print "dependency", group, artifact, scope, optional
			else if (where ~ /^(\/profiles\/profile)?\/dependencyManagement\/dependencies$/) print "managed", group, artifact, scope
		}
	' "$1"
}

# Every staged POM of Warden depends only on published modules of Warden in the scopes a user
# resolves: an internal module is never staged, so a user's build could not resolve it.
published=" ${poms[*]} ${jars[*]} "
for pom in "$base"/*/"$version"/*.pom; do
	[ -f "$pom" ] || continue
	artifact="$(basename "$(dirname "$(dirname "$pom")")")"
	deps="$(pom_dependencies "$pom")"
	# The dependency management in effect: the POM's own, then its staged parents' (Warden's).
	managed="$(grep '^managed ' <<< "$deps" || true)"
	parent="$(awk '$1 == "parent" && $2 == "dev.warden" { print $3 }' <<< "$deps")"
	seen=""
	while [ -n "$parent" ] && [[ " $seen " != *" $parent "* ]]; do
		seen="$seen $parent"
		parent_pom="$(find_file "$parent" .pom)"
		[ -n "$parent_pom" ] || break
		parent_deps="$(pom_dependencies "$parent_pom")"
		managed="$managed"$'\n'"$(grep '^managed ' <<< "$parent_deps" || true)"
		parent="$(awk '$1 == "parent" && $2 == "dev.warden" { print $3 }' <<< "$parent_deps")"
	done
	while read -r kind group dependency scope optional; do
		[ "$kind" = dependency ] && [ "$group" = dev.warden ] || continue
		if [ "$scope" = "-" ]; then
			scope="$(awk -v a="$dependency" '$2 == "dev.warden" && $3 == a && $4 != "-" { print $4; exit }' <<< "$managed")"
			scope="${scope:-compile}"
		fi
		case "$scope" in compile | runtime) ;; *) continue ;; esac
		[ "$optional" != true ] || continue
		if [[ "$published" != *" $dependency "* ]]; then
			errors+=("$artifact: $(basename "$pom") depends on $dependency ($scope scope), which is not published: a user's build cannot resolve it")
		fi
	done <<< "$deps"
done

if [ "${#errors[@]}" -gt 0 ]; then
	echo "release-check: ERROR: the staged repository $repo is not what a release publishes:" >&2
	printf '  - %s\n' "${errors[@]}" >&2
	exit 1
fi
echo "release-check: $repo has warden-parent, warden-bom and, each with POM, jar, sources and javadoc$($checksums && echo ' (with checksums)'), ${jars[*]}; no internal module; their POMs depend on no unpublished module."
