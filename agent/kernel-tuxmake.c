// SPDX-License-Identifier: GPL-2.0-only
/* Kernels from other builders: a TuxMake output directory (KernelCI's and TuxSuite's
 * builds have the same layout): metadata.json, the kernel image, dtbs/, modules.tar.xz.
 * ablab derives a kernel directory of its own from it (kernel.h), under
 * CACHE/tuxmake/KEY/: the image and the board's DTB copied, the out-of-tree modules
 * (lib/modules/RELEASE/extra/, where dmabench installs) taken from modules.tar.xz, the
 * initramfs (DIR/initramfs.cpio.gz, else the board's own userland from `make kernels`)
 * with those modules on top as /lib/modules/NAME.ko,
 * and a manifest.json whose release is the build's (source.kernelrelease) and which
 * names the TuxMake directory and its metadata.  The board's recipe says what the board
 * needs: the architecture (ARCH), the image (KIMAGE) and the DTB (DTB). */
#include "board.h"
#include "shared/jsonfile.h"
#include "kernel.h"
#include "shared/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* VALUE of "KEY=VALUE  # comment" in a recipe file (quotes removed), or NULL */
static char *conf_value(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *l = text; *l; l += strcspn(l, "\n"), l += *l == '\n') {
		const char *v;
		size_t n;

		if (strncmp(l, key, kl) || l[kl] != '=')
			continue;
		v = l + kl + 1;
		n = strcspn(v, "#\n");
		while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
			n--;
		if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
			v++;
			n -= 2;
		}
		return strndup(v, n);
	}
	return NULL;
}

/* the first file called name under dir (depth-first; dtbs/ may have vendor subdirs) */
static char *find_file(const char *dir, const char *name, int depth)
{
	struct dirent *de;
	char *found = NULL;
	DIR *d = opendir(dir);

	if (!d)
		return NULL;
	while (!found && (de = readdir(d))) {
		char *p;

		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (!strcmp(de->d_name, name) && is_file(p)) {
			found = p;
			break;
		}
		if (depth > 0 && is_dir(p))
			found = find_file(p, name, depth - 1);
		free(p);
	}
	closedir(d);
	return found;
}

static int sha256_of(const char *path, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char *data;
	size_t len;
	int ret = read_file(path, &data, &len);

	if (ret)
		return ret;
	EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL);
	free(data);
	for (unsigned int i = 0; i < mdlen && i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	hex[64] = '\0';
	return 0;
}

/* The board's needs from its recipe: *arch, *image, *dtb ("" when the machine makes its
 * own DT).  0 or -errno (said). */
static int board_needs(const char *dir, const char *board, char **arch, char **image, char **dtb)
{
	struct board b;
	char *conf = NULL, *text = NULL;
	size_t len;
	int ret = board_load_by_name(&b, board);

	*arch = *image = *dtb = NULL;
	if (ret) {
		board_free(&b);
		return ret;
	}
	if (!b.kernel_recipe) {
		err_msg("%s is a TuxMake directory, but board %s has no kernel.recipe: ablab cannot tell which architecture, image and DTB the board needs (give it a directory with ablab's manifest.json)",
			dir, b.name);
		board_free(&b);
		return -EINVAL;
	}
	conf = board_recipe_path(&b);
	ret = read_file(conf, &text, &len);
	if (ret) {
		err_msg("%s: kernel.recipe %s: %s", b.jf.path, conf, strerror(-ret));
	} else {
		*arch = conf_value(text, "ARCH");
		*image = conf_value(text, "KIMAGE");
		*dtb = conf_value(text, "DTB");
		if (!*arch || !*image) {
			err_msg("%s: no ARCH= or KIMAGE= line: ablab cannot tell what board %s needs from a TuxMake directory",
				conf, b.name);
			ret = -EINVAL;
		}
		if (!*dtb)
			*dtb = xstrdup("");
	}
	free(text);
	free(conf);
	board_free(&b);
	return ret;
}

/* copy src into the directory dfd as name: 0 or -errno (said) */
static int put(const char *src, int dfd, const char *name, const char *ddir)
{
	int ret = copy_file_atomic_at(src, dfd, name);

	if (ret)
		err_msg("cannot copy %s to %s/%s: %s", src, ddir, name, strerror(-ret));
	return ret;
}

/* lib/modules/RELEASE/extra/ .ko files of modules.tar.xz into ddir (flat) */
static int put_modules(const char *tarball, const char *ddir, json_object *mods)
{
	char *tmp = xasprintf("%s/.modules", ddir), *kdir = NULL;
	char *argv[] = { "tar", "-xJf",	       (char *)tarball, "-C",
			 tmp,	"--wildcards", "*/extra/*.ko",	NULL };
	struct dirent *de;
	DIR *d;
	int ret;

	remove_tree(tmp);
	mkdir_p(tmp, 0755);
	ret = run_argv(argv, NULL);
	/* the tree is lib/modules/RELEASE/extra/ */
	{
		char *lm = xasprintf("%s/lib/modules", tmp);
		DIR *r = opendir(lm);

		while (r && (de = readdir(r)))
			if (de->d_name[0] != '.') {
				free(kdir);
				kdir = xasprintf("%s/%s/extra", lm, de->d_name);
			}
		if (r)
			closedir(r);
		free(lm);
	}
	d = kdir ? opendir(kdir) : NULL;
	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char *src, *dst;

		if (l < 4 || strcmp(de->d_name + l - 3, ".ko"))
			continue;
		src = xasprintf("%s/%s", kdir, de->d_name);
		dst = xasprintf("%s/%s", ddir, de->d_name);
		if (rename(src, dst))
			ret = -errno;
		else
			json_object_array_add(mods, json_object_new_string(de->d_name));
		free(src);
		free(dst);
	}
	if (d)
		closedir(d);
	free(kdir);
	remove_tree(tmp);
	free(tmp);
	return ret < 0 ? ret : 0;
}

static void newc(struct buf *b, const char *name, unsigned int mode, const char *data, size_t len)
{
	static const char zero[4];
	size_t nl = strlen(name) + 1;

	buf_printf(b, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", 0u, mode, 0u,
		   0u, 1u, 0u, (unsigned int)len, 0u, 0u, 0u, 0u, (unsigned int)nl, 0u);
	buf_append(b, name, nl);
	buf_append(b, zero, (4 - (110 + nl) % 4) % 4);
	if (len)
		buf_append(b, data, len);
	buf_append(b, zero, (4 - len % 4) % 4);
}

/* The initramfs src with the modules of ml (files in ddir) as /lib/modules/NAME.ko on top:
 * an uncompressed newc archive appended (the kernel unpacks one archive after the other,
 * a later file replacing an earlier one), so that a board whose userland loads
 * /lib/modules/dmabench.ko loads the TuxMake build's. */
static int put_initramfs(const char *src, int dfd, const char *ddir, json_object *ml)
{
	struct buf b = { 0 };
	char *data = NULL;
	size_t len;
	int ret = read_file(src, &data, &len);

	if (ret) {
		err_msg("%s: %s", src, strerror(-ret));
		return ret;
	}
	buf_append(&b, data, len);
	free(data);
	while (b.len % 4)
		buf_append(&b, "", 1);
	for (size_t i = 0; i < json_object_array_length(ml); i++) {
		const char *n = json_object_get_string(json_object_array_get_idx(ml, i));
		char *p = xasprintf("%s/%s", ddir, n), *t = xasprintf("lib/modules/%s", n);

		ret = read_file(p, &data, &len);
		if (!ret) {
			newc(&b, t, 0100644, data, len);
			free(data);
		}
		free(p);
		free(t);
		if (ret)
			break;
	}
	newc(&b, "TRAILER!!!", 0, NULL, 0);
	if (!ret)
		ret = write_file_atomic_at(dfd, "initramfs.cpio.gz", b.data, b.len);
	if (ret)
		err_msg("%s/initramfs.cpio.gz: %s", ddir, strerror(-ret));
	buf_free(&b);
	return ret;
}

/* The files of the build board boots: its image, its device tree (dtb "" none), its
 * initramfs, else the board's own control kernel's (own: that directory); 0 or -ENOENT
 * (printed). */
static int tux_files(const char *dir, const char *board, const char *image, const char *dtb,
		     char **img, char **dtbp, char **initrd, char **own)
{
	*img = xasprintf("%s/%s", dir, image);
	if (!is_file(*img)) {
		err_msg("TuxMake directory %s has no %s: the kernel image board %s boots", dir,
			image, board);
		return -ENOENT;
	}
	if (dtb[0]) {
		char *dd = xasprintf("%s/dtbs", dir);

		*dtbp = find_file(dd, dtb, 3);
		free(dd);
		if (!*dtbp) {
			err_msg("TuxMake directory %s has no dtbs/%s (nor under a dtbs/ subdirectory): the device tree board %s boots with",
				dir, dtb, board);
			return -ENOENT;
		}
	}
	*initrd = xasprintf("%s/initramfs.cpio.gz", dir);
	if (!is_file(*initrd)) {
		char *c = kernel_default_dir(board, "control");

		free(*initrd);
		*initrd = c ? xasprintf("%s/initramfs.cpio.gz", c) : NULL;
		*own = c;
		if (!*initrd || !is_file(*initrd)) {
			err_msg("TuxMake directory %s has no initramfs.cpio.gz, and board %s has no userland of its own to borrow (%s: run `make kernels`, or put an initramfs.cpio.gz beside the image)",
				dir, board, *initrd ? *initrd : "no cache directory");
			return -ENOENT;
		}
	}
	return 0;
}

/* The build's metadata: passed, with its release and architecture, and a board to derive
 * the kernel for; 0 or -EINVAL (printed). */
static int tux_meta(const char *mpath, const char *dir, json_object *root, const char *board,
		    const char **rel, const char **tarch)
{
	const char *status = jstr(jobj(root, "results"), "status");

	*rel = jstr(jobj(root, "source"), "kernelrelease");
	*tarch = jstr(jobj(root, "build"), "target_arch");
	if (status && strcmp(status, "PASS")) {
		err_msg("%s: results.status is %s: the TuxMake build failed, no kernel to boot",
			mpath, status);
		return -EINVAL;
	}
	if (!*rel || !*tarch) {
		err_msg("%s: missing %s: ablab needs the build's kernel release (source.kernelrelease) and architecture (build.target_arch)",
			mpath, !*rel ? "source.kernelrelease" : "build.target_arch");
		return -EINVAL;
	}
	if (!board) {
		err_msg("%s is a TuxMake directory: ablab derives its kernel for a board (give it as --control/--patched of a campaign on that board)",
			dir);
		return -EINVAL;
	}
	return 0;
}

/* The derived directory's key: the metadata, the image's sha256, the board, the initramfs. */
static void derived_key(json_object *root, const char *sha, const char *board, const char *initrd,
			char key[65])
{
	char *k = xasprintf("%s %s %s %s", json_object_to_json_string(root), sha, board, initrd);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	EVP_Digest(k, strlen(k), md, &mdlen, EVP_sha256(), NULL);
	for (unsigned int i = 0; i < mdlen && i < 32; i++)
		snprintf(key + 2 * i, 3, "%02x", md[i]);
	key[64] = '\0';
	free(k);
}

/* The derived directory's manifest.json (ml: the modules taken out, owned by it now). */
static json_object *tux_manifest(json_object *root, const char *board, const char *rel,
				 const char *sha, const char *dir, const char *image,
				 const char *dtbp, json_object *ml, const char *initrd,
				 const char *tarch)
{
	json_object *m = json_object_new_object(), *files, *tm;

	json_object_object_add(m, "board", json_object_new_string(board));
	json_object_object_add(m, "variant", json_object_new_string("tuxmake"));
	json_object_object_add(m, "release", json_object_new_string(rel));
	files = json_object_new_object();
	tm = json_object_new_object();
	json_object_object_add(tm, "sha256", json_object_new_string(sha));
	json_object_object_add(files, "zImage", tm);
	json_object_object_add(m, "files", files);
	tm = json_object_new_object();
	json_object_object_add(tm, "dir", json_object_new_string(dir));
	json_object_object_add(tm, "image", json_object_new_string(image));
	json_object_object_add(tm, "dtb", dtbp ? json_object_new_string(dtbp) : NULL);
	json_object_object_add(tm, "modules", ml);
	json_object_object_add(tm, "initramfs", json_object_new_string(initrd));
	json_object_object_add(tm, "target_arch", json_object_new_string(tarch));
	json_object_object_add(tm, "metadata", json_object_get(root));
	json_object_object_add(m, "tuxmake", tm);
	return m;
}

int kernel_from_tuxmake(const char *dir, const char *board, char **derived)
{
	char *mpath = xasprintf("%s/metadata.json", dir), *arch = NULL, *image = NULL;
	char *dtb = NULL, *img = NULL, *dtbp = NULL, *initrd = NULL, *ddir = NULL;
	char *cache = NULL, *own = NULL, *mods = NULL, sha[65], key[65];
	const char *rel, *tarch;
	json_object *m = NULL, *ml = NULL;
	struct jfile jf = { 0 };
	int dfd = -1, ret;

	*derived = NULL;
	ret = jfile_load(&jf, mpath);
	if (ret)
		goto out;
	ret = tux_meta(mpath, dir, jf.root, board, &rel, &tarch);
	if (ret)
		goto out;
	ret = board_needs(dir, board, &arch, &image, &dtb);
	if (ret)
		goto out;
	if (strcmp(arch, tarch)) {
		err_msg("%s was built for %s (build.target_arch), but board %s needs %s", dir,
			tarch, board, arch);
		ret = -EINVAL;
		goto out;
	}
	ret = tux_files(dir, board, image, dtb, &img, &dtbp, &initrd, &own);
	if (ret)
		goto out;
	mods = xasprintf("%s/modules.tar.xz", dir);

	/* the derived directory: keyed by the metadata and the image */
	ret = sha256_of(img, sha);
	if (!ret)
		derived_key(jf.root, sha, board, initrd, key);
	cache = cache_dir();
	if (ret || !cache) {
		ret = ret ? ret : -ENOENT;
		goto out;
	}
	ddir = xasprintf("%s/tuxmake/%.16s", cache, key);
	mkdir_p(ddir, 0755);
	dfd = open(ddir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		ret = -errno;
		err_msg("%s: %s", ddir, strerror(errno));
		goto out;
	}
	ret = put(img, dfd, "zImage", ddir);
	if (!ret && dtbp)
		ret = put(dtbp, dfd, dtb, ddir);
	ml = json_object_new_array();
	if (!ret && is_file(mods) && put_modules(mods, ddir, ml))
		info_msg("%s: warning: cannot take the modules out of %s", ddir, mods);
	if (!ret)
		ret = put_initramfs(initrd, dfd, ddir, ml);
	if (ret)
		goto out;
	m = tux_manifest(jf.root, board, rel, sha, dir, image, dtbp, ml, initrd, tarch);
	ml = NULL;
	{
		const char *t = json_object_to_json_string_ext(m, JSON_C_TO_STRING_PRETTY);

		ret = write_file_atomic_at(dfd, "manifest.json", t, strlen(t));
		if (ret)
			err_msg("%s/manifest.json: %s", ddir, strerror(-ret));
	}
	if (!ret) {
		*derived = ddir;
		ddir = NULL;
	}
out:
	if (dfd >= 0)
		close(dfd);
	json_object_put(m);
	json_object_put(ml);
	jfile_free(&jf);
	free(mpath);
	free(arch);
	free(image);
	free(dtb);
	free(img);
	free(dtbp);
	free(initrd);
	free(own);
	free(mods);
	free(ddir);
	free(cache);
	return ret;
}

/* The kernel cache's directory of a board's variant (kernel.h): here, below kernel.c, as the
 * TuxMake reader borrows the control kernel's userland from it. */
char *kernel_default_dir(const char *board, const char *label)
{
	char *cache = cache_dir();
	char *d = cache ? xasprintf("%s/kernels/%s/%s", cache, board, label) : NULL;

	free(cache);
	return d;
}
