// SPDX-License-Identifier: GPL-2.0-only
/* libFuzzer harness: the mbox/series parsing of agent/series.c without b4.  The input is
 * b4's am-ready mbox (messages separated by "From git@z ..." lines) or one quilt patch
 * file; it is split into its messages (mbx_messages), and each message's headers
 * (header: Subject, Message-Id, From, Date, folded or not), its body, the subject's
 * version (subject_version), the format-patch file name (patch_name) and the folded
 * Subject line (put_subject) are taken as series_from_mbox takes them.  The file is
 * included (its helpers are static); run.sh leaves agent/series.c out of this build. */
#include "../../agent/series.c"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_message(char *msg, size_t nr)
{
	char *subj = header(msg, "Subject"), *id = header(msg, "Message-Id");
	char *from = header(msg, "From"), *date = header(msg, "Date"), *body, *name;
	struct buf pd = { 0 };

	body = strstr(msg, "\n\n");
	if (subj) {
		put_subject(&pd, subj);
		name = patch_name(nr, subj);
		if (subject_version(subj) < 0)
			abort(); /* atoi of a digit run: never negative */
		if (strlen(name) < 10 || strncmp(name + strlen(name) - 6, ".patch", 6) ||
		    strchr(name, '/'))
			abort(); /* a file name in the patch directory, nothing else */
		free(name);
	}
	buf_printf(&pd, "From: %s\nDate: %s\n", from ? from : "", date ? date : "");
	if (body)
		buf_append(&pd, body + 2, strlen(body + 2));
	buf_free(&pd);
	free(subj);
	free(id);
	free(from);
	free(date);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *copy, **msgs;
	size_t n = 0, i;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	msgs = mbx_messages(text, &n);
	for (i = 0; i < n; i++)
		one_message(msgs[i], i + 1);
	strv_free(msgs);
	/* a quilt patch file alone (b4's NNNN-subject.patch) */
	copy = xstrdup(text);
	one_message(copy, 1);
	free(copy);
	free(text);
	return 0;
}
