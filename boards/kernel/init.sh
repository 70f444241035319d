#!/bin/sh
# /init of the ablab initramfs (installed by boards/kernel/build.sh).
# Mount the pseudo filesystems and give the console an interactive busybox
# shell with the prompt "lab# ".
#
# The shell reads its commands through a pipe, not from the tty: busybox's
# line editing (used whenever an interactive shell's stdin is a tty, with or
# without cttyhack) writes ESC[6n after every prompt. On a pipe the shell
# reads plain lines and the console tty (canonical mode, ECHO on) echoes
# what is typed. The pipe is fed line by line by a read loop (busybox cat
# uses sendfile() and hands a line over only when the next one arrives).
# There is no controlling tty: no job control, ^C does not interrupt.
export PATH=/bin:/sbin
export HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
cd /
export PS1='lab# '
while :; do
	while IFS= read -r line; do printf '%s\n' "$line"; done | sh -i +m
done
