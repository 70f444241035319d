#!/bin/bash
# tests/linux-git-base.sh [TARBALL]: prints the path of a bare git repository whose one
# commit is the pristine kernel source of TARBALL (default /usr/src/linux-source-6.1.tar.xz),
# made once per tarball and kept in the cache:
#   $CACHE/git/linux-<tarball-sha16>.git
# `git add` of the ~75k files takes minutes, so the repository is made once; a test makes
# its own history in a cheap `git clone --shared --bare` of it.  The commit is
# reproducible (fixed author, committer and dates), so its id is the same on every machine
# with the same tarball.  The files are read from build.sh's extraction
# ($CACHE/src/<tarball-sha16>, made here the same way if it is missing).
set -euo pipefail
export LC_ALL=C
TARBALL=${1:-/usr/src/linux-source-6.1.tar.xz}
CACHE=${ABLAB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ablab}
die() { echo "linux-git-base.sh: error: $*" >&2; exit 1; }
[[ -f $TARBALL ]] || die "kernel source $TARBALL not found: apt-get install linux-source-6.1"
command -v git >/dev/null || die "'git' not found: apt-get install git"
mkdir -p "$CACHE"/{hashes,src,git}

# the tarball's sha256, cached by path + size + mtime as build.sh caches it
path=$(readlink -f "$TARBALL")
id=$(printf '%s' "$path $(stat -c '%s %Y' "$path")" | sha256sum | cut -d' ' -f1)
if [[ ! -s $CACHE/hashes/$id ]]; then
	sha256sum "$path" | cut -d' ' -f1 >"$CACHE/hashes/$id.tmp.$$"
	mv -f "$CACHE/hashes/$id.tmp.$$" "$CACHE/hashes/$id"
fi
sha=$(<"$CACHE/hashes/$id")
base=$CACHE/git/linux-${sha:0:16}.git
[[ -f $base/ablab-base ]] && { echo "$base"; exit 0; }

exec 9>"$CACHE/git/.lock"
flock 9
[[ -f $base/ablab-base ]] && { echo "$base"; exit 0; }
src=$CACHE/src/${sha:0:16}
if [[ ! -f $src/.ablab-extracted ]]; then
	echo "linux-git-base.sh: extracting $TARBALL into $src" >&2
	rm -rf "$src.tmp.$$"
	mkdir -p "$src.tmp.$$"
	tar -xf "$TARBALL" -C "$src.tmp.$$" --strip-components=1
	echo "$sha" >"$src.tmp.$$/.ablab-extracted"
	rm -rf "$src"
	mv -T "$src.tmp.$$" "$src"
fi
echo "linux-git-base.sh: making $base from $src (git add of the whole tree: minutes, once per tarball)" >&2
t0=$SECONDS
tmp=$base.tmp.$$
rm -rf "$tmp"
git init -q --bare "$tmp"
echo /.ablab-extracted >"$tmp/info/exclude"
# the extraction is the work tree: git only reads it; the index stays in the bare repository
export GIT_DIR=$tmp GIT_WORK_TREE=$src
# -f: Debian's top-level .gitignore ignores everything at the top level
(cd "$src" && git -c core.looseCompression=1 add -A -f)
n=$(cd "$src" && git ls-files | wc -l)
[[ $n -gt 50000 ]] || die "git add of $src gave $n files, not a kernel tree"
export GIT_AUTHOR_NAME=ablab GIT_AUTHOR_EMAIL=ablab@localhost GIT_COMMITTER_NAME=ablab \
	GIT_COMMITTER_EMAIL=ablab@localhost GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' \
	GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'
commit=$(git commit-tree -m "$(basename "$TARBALL") (sha256 $sha)" "$(git write-tree)")
git update-ref refs/heads/master "$commit"
git tag base "$commit"
rm -f "$tmp/index"
unset GIT_DIR GIT_WORK_TREE
echo "$commit" >"$tmp/ablab-base"
mv -T "$tmp" "$base"
echo "linux-git-base.sh: $base: commit $commit ($n files) in $((SECONDS - t0)) s" >&2
echo "$base"
