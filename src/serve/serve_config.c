/*
 * serve_config.c - where --serve listens and the token it asks for:
 * parsed once, before anything is launched, each mistake said in a line.
 */
#include "serve/serve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int serve_parse_address(const char *text, struct sockaddr_storage *out, socklen_t *len,
			char *err, size_t errlen)
{
	char host[256] = "127.0.0.1";
	const char *colon = strrchr(text, ':'), *port = colon ? colon + 1 : text;
	struct addrinfo hints, *res = NULL;
	char *end;
	long p;
	int rc;

	if (colon && colon > text) {
		const char *h = text;
		size_t n = (size_t)(colon - text);

		/* [v6]:port */
		if (h[0] == '[' && n >= 2 && h[n - 1] == ']')
			h++, n -= 2;
		if (n >= sizeof(host)) {
			snprintf(err, errlen, "--serve: the address '%.40s...' is too long", text);
			return -EINVAL;
		}
		memcpy(host, h, n);
		host[n] = '\0';
	}
	errno = 0;
	p = strtol(port, &end, 10);
	if (!*port || *end || errno || p < 0 || p > 65535) {
		snprintf(err, errlen, "--serve needs [ADDRESS:]PORT with a port from 1 to 65535 "
			 "(0: any free one), not '%.80s'", text);
		return -EINVAL;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc || !res || res->ai_addrlen > sizeof(*out)) {
		snprintf(err, errlen, "--serve: '%.80s' is not an address of this machine (%s); "
			 "give an IP address such as 127.0.0.1", host, rc ? gai_strerror(rc) : "none");
		if (res)
			freeaddrinfo(res);
		return -EADDRNOTAVAIL;
	}
	memset(out, 0, sizeof(*out));
	memcpy(out, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

bool serve_address_is_loopback(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)a)->sin_addr.s_addr) >> 24) == 127;
	if (a->ss_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)a)->sin6_addr);
	return false;
}

int serve_read_token(const char *path, char *token, size_t len, char *err, size_t errlen)
{
	char buf[512];
	struct stat st;
	ssize_t n;
	size_t k = 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		snprintf(err, errlen, "cannot open the token file '%.200s': %s", path,
			 strerror(errno));
		return -EACCES;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "the token file '%.200s' is not a regular file", path);
		return -EACCES;
	}
	if (st.st_mode & 077) {
		close(fd);
		snprintf(err, errlen, "the token file '%.200s' can be read by others (mode %04o): "
			 "chmod 600 it", path, (unsigned)(st.st_mode & 07777));
		return -EACCES;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "cannot read the token file '%.200s': %s", path,
			 strerror(errno));
		return -EACCES;
	}
	buf[n] = '\0';
	while (k < (size_t)n && buf[k] > ' ' && buf[k] < 0x7f)
		k++;
	/* The first line: printable, then its end (a newline, or the file's). */
	if (k < 16 || k > 256 || k + 1 > len ||
	    (k < (size_t)n && buf[k] != '\n' && !(buf[k] == '\r' && buf[k + 1] == '\n'))) {
		snprintf(err, errlen, "the token file '%.200s' must start with a line of 16 to 256 "
			 "printable characters and no spaces", path);
		return -EACCES;
	}
	memcpy(token, buf, k);
	token[k] = '\0';
	return 0;
}
