# Installable on a lab host (Makefile install/uninstall, debian/, docs/ablab.1.scd).
# `dpkg-buildpackage -us -uc -b` in a copy of the checkout under $tmp (so that
# nothing generated lands in the repository: checked), then the .deb installed
# into a scratch root: `dpkg --root=$tmp/root` with an empty admindir there,
# --force-depends (the scratch root's database knows no libc6; the libraries
# are this host's) and --force-script-chrootless, so that the real maintainer
# scripts run, with DPKG_ROOT=$tmp/root, against the scratch root: the user
# ablab appears in its /etc/passwd (systemd-sysusers --root), the units'
# state in its /var/lib/systemd; a chroot would need a whole Debian inside.
# The installed `ablab --help` runs, `man -l` renders the installed page with
# no warning, and every command `ablab help` lists has its entry there (shown
# to fail on a page with one removed); the example boards validate where they
# are installed; purge removes every file; `make install DESTDIR=... &&
# make uninstall` leave nothing either.  No network: the build needs only the
# Build-Depends (make deps installs them).
# timeout: 300
for p in dpkg-buildpackage dh scdoc man fakeroot; do
	command -v $p >/dev/null || { skip "t90: no $p (make deps installs it)"; return 0; }
done
src=$tmp/src root=$tmp/root
mkdir -p "$src"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	# tracked and new files, nothing ignored (no build/, no ablab binary)
	(cd "$top" && git ls-files -z --cached --others --exclude-standard) |
		(cd "$top" && tar -c --null -T - 2>/dev/null) | tar -x -C "$src"
	before=$(cd "$top" && git status --porcelain --ignored)
else
	tar -C "$top" --exclude=./build --exclude=./ablab -c . | tar -x -C "$src"
fi

echo "== dpkg-buildpackage -us -uc -b (in $src)"
t0=$SECONDS
(cd "$src" && DEB_BUILD_OPTIONS="parallel=2 noddebs" dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1; rc=$?
tail -n 3 "$tmp/build.log"
deb=$(ls "$tmp"/ablab_*.deb 2>/dev/null | head -n 1)
check "dpkg-buildpackage: exit 0 and a .deb in $((SECONDS - t0)) s ($(basename "${deb:-none}"))" \
	test "$rc" = 0 -a -n "$deb" || { tail -n 30 "$tmp/build.log"; return 0; }
check "the build used the Debian hardening flags (CPPFLAGS fortify: __*_chk calls; LDFLAGS: -z now)" \
	bash -c "readelf -W --dyn-syms '$src/debian/ablab/usr/bin/ablab' | grep -q '_chk@' && readelf -d '$src/debian/ablab/usr/bin/ablab' | grep -q BIND_NOW"
[ -z "${before+x}" ] || check "nothing generated landed in the repository" \
	test "$(cd "$top" && git status --porcelain --ignored)" = "$before"

echo "== dpkg --root $root --force-script-chrootless -i"
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/triggers" "$root/etc"
: >"$root/var/lib/dpkg/status"
: >"$root/var/lib/dpkg/available"
host_has_user=$(getent passwd ablab >/dev/null && echo 1)
dpk() { dpkg --root="$root" --log=/dev/null --force-script-chrootless --force-depends "$@"; }
dpk -i "$deb" >"$tmp/dpkg.log" 2>&1; rc=$?
grep -v '^dpkg: warning: \|^ ablab depends on\|^  Package .* is not installed' "$tmp/dpkg.log" | head -n 5
check "dpkg -i into the scratch root: exit 0, ablab installed" \
	test "$rc/$(dpkg --root="$root" -s ablab 2>/dev/null | sed -n 's/^Status: //p')" = "0/install ok installed"
check "postinst made the system user ablab in the scratch root, with dialout and plugdev" \
	bash -c "grep -q '^ablab:' '$root/etc/passwd' && grep -q '^dialout:.*ablab' '$root/etc/group' && grep -q '^plugdev:.*ablab' '$root/etc/group'"
[ -n "$host_has_user" ] || check "... and not on this host" bash -c "! getent passwd ablab >/dev/null"
check "the nightly timer is not enabled by the installation" \
	bash -c "! ls '$root'/etc/systemd/system/*.wants/ablab-nightly.* >/dev/null 2>&1"

echo "== the installed files"
a=$root/usr/bin/ablab
out=$("$a" --help 2>&1); rc=$?
check "installed ablab --help: exit 0, usage" bash -c "[ $rc = 0 ] && echo \"\$1\" | grep -q '^usage: ablab '" _ "$out"
page=$root/usr/share/man/man1/ablab.1.gz
man_text() { MANWIDTH=100 LC_ALL=C.UTF-8 MANROFFOPT=-ww man -P cat -l "$1" 2>"$tmp/man.err" | col -b; }
man_text "$page" >"$tmp/man.txt"
check "man -l renders the installed page ($(wc -l <"$tmp/man.txt") lines), no warning" \
	bash -c "grep -q '^NAME' '$tmp/man.txt' && grep -q 'ablab - automated A/B benchmark lab' '$tmp/man.txt' && [ ! -s '$tmp/man.err' ]" ||
	head -n 5 "$tmp/man.err"
cmds=$("$a" help | sed -n '/^commands:/,/^$/p' | awk '/^  [a-z]/ { print $1 }')
# missing TEXT: the commands of `ablab help` without an "ablab CMD" entry in TEXT
missing() { for c in $cmds; do grep -Eq "^ +ablab $c( |\$)" "$1" || echo "$c"; done; }
check "every command of \`ablab help\` ($(echo $cmds | wc -w)) has an entry in the man page (missing: $(echo $(missing "$tmp/man.txt")))" \
	test -n "$cmds" -a -z "$(missing "$tmp/man.txt")"
grep -Ev '^ +ablab ports' "$tmp/man.txt" >"$tmp/man-minus.txt"
check "the check fails on a page without one of them (ports)" test "$(missing "$tmp/man-minus.txt")" = ports
check "the page's EXIT STATUS names 0, 1, 2 and 3" \
	bash -c "sed -n '/^EXIT STATUS/,/^[A-Z]/p' '$tmp/man.txt' | grep -Ec '^ +[0-3]\$' | grep -qx 4"
unit=$root/lib/systemd/system/ablab-nightly.service
check "the service runs the installed binary; the timer is there" \
	bash -c "grep -qx 'ExecStart=/usr/bin/ablab nightly .*' '$unit' && [ -f '$root/lib/systemd/system/ablab-nightly.timer' ]"
ex=$root/usr/share/ablab
out=$(ABLAB_BOARDS=$ex/boards "$a" check-board qemu-sam9x75 pi400 2>&1); rc=$?
check "the example boards validate where installed (ABLAB_BOARDS=/usr/share/ablab/boards)" \
	bash -c "[ $rc = 0 ] && [ \$(echo \"\$1\" | grep -c ': ok (') = 2 ]" _ "$out" || echo "$out"
check "examples: jobs, kernel recipes and the module source in /usr/share/ablab" bash -c \
	"[ -f '$ex/jobs/dma-from-device.json' ] && [ -x '$ex/boards/kernel/build.sh' ] && [ -f '$ex/kmod/dmabench.c' ] && ls '$ex'/jobs/dma-from-device/patches/*.patch >/dev/null"
dpk --purge ablab >"$tmp/purge.log" 2>&1; rc=$?
check "dpkg --purge: exit 0, no file of the package left" \
	bash -c "[ $rc = 0 ] && [ -z \"\$(find '$root/usr' '$root/lib' -type f 2>/dev/null)\" ]" || cat "$tmp/purge.log"

echo "== make install / make uninstall (DESTDIR, PREFIX=/usr/local)"
di=$tmp/destdir
make -C "$src" -s install DESTDIR="$di" >"$tmp/install.log" 2>&1; rc=$?
check "make install: exit 0; binary, ablab(1), units, sysusers, examples under /usr/local" bash -c \
	"[ $rc = 0 ] && [ -x '$di/usr/local/bin/ablab' ] && [ -f '$di/usr/local/share/man/man1/ablab.1' ] && grep -q '^ExecStart=/usr/local/bin/ablab ' '$di/usr/local/lib/systemd/system/ablab-nightly.service' && [ -f '$di/usr/local/lib/sysusers.d/ablab.conf' ] && [ -f '$di/usr/local/share/ablab/boards/qemu-sam9x75.json' ]" ||
	tail -n 5 "$tmp/install.log"
# issue 27, Low: the installed unit kept the checkout's /srv/ablab (a .deb install failed at CHDIR)
u=$di/usr/local/lib/systemd/system/ablab-nightly.service
fault 27.16 "make install: the unit runs in its state directory with jobs and boards under etc, no /srv/ablab" bash -c \
	"grep -qx 'WorkingDirectory=%S/ablab' '$u' && grep -q '^Environment=ABLAB_JOBS=/usr/local/etc/ablab/jobs ABLAB_BOARDS=/usr/local/etc/ablab/boards$' '$u' && ! grep -q /srv/ablab '$u' && [ -f '$di/usr/local/lib/tmpfiles.d/ablab.conf' ]"
make -C "$src" -s uninstall DESTDIR="$di" >>"$tmp/install.log" 2>&1; rc=$?
check "make uninstall: exit 0, no file left" bash -c "[ $rc = 0 ] && [ -z \"\$(find '$di' -type f)\" ]"
