// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: the console expect engine (console_take/console_scan,
 * the steps of console_expect) takes any byte stream in any chunking, the
 * payload repeated up to 32 times (past the window), with board-like
 * patterns, pins and a transcript cap: offsets stay inside the window, and a
 * literal pattern is found at its first occurrence whatever the chunks. */
#include "backend/console.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const fixed[] = {
	"lab# ", "Kernel panic - not syncing", "^U-Boot SPL ", "Hit any key to stop autoboot",
	"0123abcdE7 ([0-9]{1,3})([^0-9]|\n)", "0123abcdB7\r?\n",
	"Bytes transferred = ([0-9]+)", "^dmabench: v1 .*$", "error.*", "x*y",
};

static char *find(const struct buf *ref, const char *lit, size_t litlen)
{
	return ref->data ? memmem(ref->data, ref->len, lit, litlen) : NULL;
}

static void check_match(const struct console *c, const regmatch_t *m)
{
	size_t k;

	for (k = 0; k < 10; k++) {
		if (m[k].rm_so < 0)
			continue;
		if (m[k].rm_so > m[k].rm_eo || (size_t)m[k].rm_eo > c->in.len)
			abort();
	}
	if (c->consumed != c->in_base + (size_t)m[0].rm_eo)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct board b = { .name = "fuzz" };
	regex_t re[ARRAY_SIZE(fixed) + 1], *res[ARRAY_SIZE(fixed) + 1];
	struct console c;
	struct buf ref = { 0 };
	char *lit = NULL, *q;
	size_t n = 0, i, step, reps, pos, litlen = 0;
	unsigned int sel, flags;
	bool oracle, matched = false;
	regmatch_t m[10];

	if (size < 4)
		return 0;
	sel = data[0] | (unsigned int)data[1] << 8;	/* which patterns */
	flags = data[2];
	step = 1 + (size_t)data[3] * (flags & 1 ? 257 : 1);
	reps = 1 + (flags >> 3 & 31);
	data += 4;
	size -= 4;
	/* a literal from the input (up to its first NUL/newline, at most 16) */
	if (flags & 2) {
		while (litlen < size && litlen < 16 && data[litlen] && data[litlen] != '\n')
			litlen++;
		if (litlen) {
			lit = strndup((const char *)data, litlen);
			q = re_quote(lit);
			if (!re_compile(&re[n], q)) {
				res[n] = &re[n];
				n++;
			}
			free(q);
		}
		data += litlen;
		size -= litlen;
	}
	/* only the literal, no cap: its first occurrence is the match */
	oracle = n == 1 && !(flags & 4);
	/* bounded work per input: at most 4096 chunks */
	while (reps * (size / step + 1) > 4096) {
		if (reps > 1)
			reps--;
		else
			step *= 2;
	}
	for (i = 0; i < ARRAY_SIZE(fixed) && !(flags & 2); i++)
		if (sel & 1u << i && !re_compile(&re[n], fixed[i])) {
			res[n] = &re[n];
			n++;
		}
	if (!n)
		goto out;
	console_init(&c, &b);
	if (flags & 4)
		c.rx_max = 256u << 10;
	console_expect_begin(&c);
	for (i = 0; i < reps; i++) {
		for (pos = 0; pos < size; pos += step) {
			size_t k = size - pos < step ? size - pos : step, j;
			int idx;

			console_take(&c, (const char *)data + pos, k);
			for (j = 0; oracle && j < k && ref.len < CONSOLE_WINDOW; j++)
				if (data[pos + j])
					buf_append(&ref, data + pos + j, 1);
			idx = console_scan(&c, res, n, m, pos + k == size || pos / step % 256 == 0);
			if (idx >= 0) {
				check_match(&c, m);
				if (oracle && !matched && ref.len < CONSOLE_WINDOW) {
					char *hit = find(&ref, lit, litlen);

					if (!hit || c.in_base + (size_t)m[0].rm_so !=
							    (size_t)(hit - ref.data))
						abort();	/* not the first occurrence */
				}
				matched = true;
				if (data[pos] & 1)
					console_pin(&c, (size_t)m[0].rm_eo);
				console_expect_begin(&c);
			}
			if (c.pin != SIZE_MAX || c.pin_lost) {
				size_t len;
				const char *d = console_pinned(&c, c.in.len, &len);

				if (d && (d < c.in.data || d + len > c.in.data + c.in.len))
					abort();
				if (data[pos] & 2)
					console_unpin(&c);
			}
			if (c.in.len > CONSOLE_PIN_MAX + CONSOLE_WINDOW + step)
				abort();	/* the window is bounded */
		}
	}
	if (console_scan(&c, res, n, m, true) >= 0) {
		check_match(&c, m);
		if (oracle && !matched && ref.len < CONSOLE_WINDOW) {
			char *hit = find(&ref, lit, litlen);

			if (!hit || c.in_base + (size_t)m[0].rm_so != (size_t)(hit - ref.data))
				abort();
		}
		matched = true;
	}
	/* the literal was in the stream (and the window): it was found */
	if (oracle && !matched && !c.flooded && ref.len < CONSOLE_WINDOW &&
	    find(&ref, lit, litlen))
		abort();
	console_close(&c);
out:
	for (i = 0; i < n; i++)
		regfree(res[i]);
	buf_free(&ref);
	free(lit);
	return 0;
}
