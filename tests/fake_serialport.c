// SPDX-License-Identifier: GPL-2.0-only
/* A libserialport for tests/t29-serial-fd.sh (LD_PRELOAD): sp_open opens the device as
 * libserialport 0.1.1 does, without O_CLOEXEC, and the first call after the open
 * (sp_set_baudrate) starts a child, as another board's thread starting its power command
 * at that moment would: `ls -l /proc/PID/fd` into $FAKE_SP_FDS.  The agent must have set
 * close-on-exec on the port before that. */
#include <fcntl.h>
#include <libserialport.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct sp_port {
	char *name;
	int fd;
};

enum sp_return sp_get_port_by_name(const char *portname, struct sp_port **port_ptr)
{
	struct sp_port *p = calloc(1, sizeof(*p));

	if (!p || !(p->name = strdup(portname))) {
		free(p);
		return SP_ERR_MEM;
	}
	p->fd = -1;
	*port_ptr = p;
	return SP_OK;
}

enum sp_return sp_open(struct sp_port *port, enum sp_mode flags)
{
	(void)flags;
	port->fd = open(port->name, O_RDWR | O_NOCTTY | O_NONBLOCK);
	return port->fd < 0 ? SP_ERR_FAIL : SP_OK;
}

enum sp_return sp_set_baudrate(struct sp_port *port, int baudrate)
{
	const char *out = getenv("FAKE_SP_FDS");
	pid_t pid;

	(void)port;
	(void)baudrate;
	if (!out)
		return SP_OK;
	pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", "ls -l /proc/$$/fd/ >\"$FAKE_SP_FDS\"", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return SP_OK;
}

enum sp_return sp_set_bits(struct sp_port *port, int bits)
{
	(void)port;
	(void)bits;
	return SP_OK;
}

enum sp_return sp_set_parity(struct sp_port *port, enum sp_parity parity)
{
	(void)port;
	(void)parity;
	return SP_OK;
}

enum sp_return sp_set_stopbits(struct sp_port *port, int stopbits)
{
	(void)port;
	(void)stopbits;
	return SP_OK;
}

enum sp_return sp_set_flowcontrol(struct sp_port *port, enum sp_flowcontrol flowcontrol)
{
	(void)port;
	(void)flowcontrol;
	return SP_OK;
}

enum sp_return sp_get_port_handle(const struct sp_port *port, void *result_ptr)
{
	*(int *)result_ptr = port->fd;
	return SP_OK;
}

enum sp_return sp_close(struct sp_port *port)
{
	if (port->fd >= 0)
		close(port->fd);
	port->fd = -1;
	return SP_OK;
}

void sp_free_port(struct sp_port *port)
{
	if (port)
		free(port->name);
	free(port);
}

char *sp_last_error_message(void)
{
	return strdup("fake libserialport");
}
