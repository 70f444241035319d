// SPDX-License-Identifier: GPL-2.0-only
/* The telnet decoder of the tcp console (console_tcp_ops.read/write): commands
 * stripped from the stream, IAC IAC kept as one 0xff byte, options answered
 * (binary and suppress-go-ahead accepted, the server's echo accepted, the rest
 * refused), subnegotiations skipped, a command cut across reads kept whole; a raw
 * tcp console passes every byte.  The board's console section is parsed by the
 * backend's own parser (console_tcp_ops.conf). */
#include "check.h"
#include "backend/console.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <sys/socket.h>
#include <unistd.h>

enum { IAC = 255, DONT = 254, DO = 253, WONT = 252, WILL = 251, SB = 250, SE = 240 };

static struct board brd;
static struct console con;
static json_object *section; /* brd's console section: the parsed host points into it */
static int peer;

static void setup(bool telnet)
{
	int sv[2];

	if (con.fd > 0)
		close(con.fd);
	if (peer > 0)
		close(peer);
	console_tcp_ops.conf.free(&brd);
	json_object_put(section);
	memset(&brd, 0, sizeof(brd));
	brd.name = "t";
	section = json_tokener_parse(
		telnet ?
			"{\"host\": \"localhost\", \"port\": 2000, \"protocol\": \"telnet\"}" :
			"{\"host\": \"localhost\", \"port\": 2000, \"protocol\": \"raw\", \"baud\": 9600}");
	CHECK(section && console_tcp_ops.conf.parse(&brd, section) == 0);
	/* the line behind the server paces the engine's reads; the default 115200 */
	CHECK(console_tcp_ops.baud(&brd) == (telnet ? 115200 : 9600));
	memset(&con, 0, sizeof(con));
	con.board = &brd;
	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
	con.fd = sv[0];
	peer = sv[1];
}

/* sends bytes from the "server", decodes what the console reads */
static ssize_t feed(const unsigned char *in, size_t n, char *out, size_t len)
{
	CHECK(write(peer, in, n) == (ssize_t)n);
	return console_tcp_ops.read(&con, out, len);
}

/* what the console answered the server (n bytes expected) */
static bool answered(const unsigned char *want, size_t n)
{
	unsigned char got[64];
	ssize_t r = read(peer, got, sizeof(got));

	if (!n)
		return r < 0 && errno == EAGAIN;
	return r == (ssize_t)n && !memcmp(got, want, n);
}

int main(void)
{
	char out[256];
	ssize_t n;

	setup(true);
	{ /* plain bytes pass, IAC IAC is one 0xff */
		const unsigned char in[] = { 'o', 'k', IAC, IAC, '\n' };

		n = feed(in, sizeof(in), out, sizeof(out));
		CHECK(n == 4 && !memcmp(out, "ok\xff\n", 4));
		CHECK(answered(NULL, 0));
	}
	{ /* the server's echo: accepted (DO ECHO) */
		const unsigned char in[] = { 'a', IAC, WILL, 1, 'b' }, ans[] = { IAC, DO, 1 };

		n = feed(in, sizeof(in), out, sizeof(out));
		CHECK(n == 2 && !memcmp(out, "ab", 2));
		CHECK(answered(ans, sizeof(ans)));
	}
	{ /* terminal type asked of us: refused (WONT); the server's status: DONT */
		const unsigned char in[] = { IAC, DO, 24, IAC, WILL, 5, 'x' };
		const unsigned char ans[] = { IAC, WONT, 24, IAC, DONT, 5 };

		n = feed(in, sizeof(in), out, sizeof(out));
		CHECK(n == 1 && out[0] == 'x');
		CHECK(answered(ans, sizeof(ans)));
	}
	{ /* binary and suppress-go-ahead: ours, no answer (we offered them) */
		const unsigned char in[] = { IAC, DO, 0, IAC, WILL, 3, IAC, WILL, 0, 'y' };

		n = feed(in, sizeof(in), out, sizeof(out));
		CHECK(n == 1 && out[0] == 'y');
		CHECK(answered(NULL, 0));
	}
	{ /* a subnegotiation (with an IAC IAC inside) is skipped whole */
		const unsigned char in[] = { 'p', IAC, SB, 24, 0, IAC, IAC, 'v', 't', IAC, SE, 'q' };

		n = feed(in, sizeof(in), out, sizeof(out));
		CHECK(n == 2 && !memcmp(out, "pq", 2));
	}
	{ /* a command cut across three reads; reads of commands only: EAGAIN */
		const unsigned char a[] = { 'm', IAC }, b[] = { DO }, c[] = { 31, 'n' };
		const unsigned char ans[] = { IAC, WONT, 31 };

		n = feed(a, sizeof(a), out, sizeof(out));
		CHECK(n == 1 && out[0] == 'm');
		errno = 0;
		n = feed(b, sizeof(b), out, sizeof(out));
		CHECK(n == -1 && errno == EAGAIN);
		n = feed(c, sizeof(c), out, sizeof(out));
		CHECK(n == 1 && out[0] == 'n');
		CHECK(answered(ans, sizeof(ans)));
	}
	{ /* writing: a 0xff byte is doubled, others pass */
		unsigned char got[16];
		const unsigned char want[] = { 'a', IAC, IAC, 'b' };

		CHECK(console_tcp_ops.write(&con,
					    "a\xff"
					    "b",
					    3) == 3);
		CHECK(read(peer, got, sizeof(got)) == 4 && !memcmp(got, want, 4));
	}
	{
		char where[64];

		brd.console_type = "tcp";
		console_describe(&brd, where, sizeof(where));
		CHECK(!strcmp(where, "tcp localhost:2000 telnet"));
	}
	setup(false);
	{ /* raw tcp: every byte passes, nothing is answered */
		const unsigned char in[] = { 'r', IAC, DO, 24, IAC, IAC };
		unsigned char got[16];

		n = feed(in, sizeof(in), out, sizeof(out));
		CHECK(n == (ssize_t)sizeof(in) && !memcmp(out, in, sizeof(in)));
		CHECK(answered(NULL, 0));
		CHECK(console_tcp_ops.write(&con, "\xff", 1) == 1);
		CHECK(read(peer, got, sizeof(got)) == 1 && got[0] == IAC);
	}
	{ /* what `ablab boards` shows of it */
		char where[64];

		brd.console_type = "tcp";
		console_describe(&brd, where, sizeof(where));
		CHECK(!strcmp(where, "tcp localhost:2000"));
	}
	close(con.fd);
	close(peer);
	console_tcp_ops.conf.free(&brd);
	json_object_put(section);
	CHECK_DONE("test_telnet");
}
