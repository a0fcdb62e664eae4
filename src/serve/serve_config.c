/*
 * serve_config.c - where --serve listens and the token it asks for:
 * parsed once, before anything is launched, each mistake said in a line.
 */
#include "output_file.h"
#include "serve/serve.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
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
	char buf[512], who[128];
	struct stat st;
	ssize_t n;
	size_t k = 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "cannot open the token file '%.200s': %s", path, strerror(e));
		return e == ENOENT ? -ENOENT : -EACCES;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "the token file '%.200s' is not a regular file", path);
		return -EACCES;
	}
	/* Its owner can change the token: another user's is no secret of ours. */
	if (!output_uid_trusted(st.st_uid)) {
		close(fd);
		snprintf(err, errlen, "the token file '%.200s' belongs to %s, who can change the "
			 "token: give a file of your own (chown it, or remove it and shimtop makes one)",
			 path, output_user_name(st.st_uid, who, sizeof(who)));
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
	explicit_bzero(buf, sizeof(buf));
	return 0;
}

/* A new token in path: 48 hex digits (192 random bits), the file 0600. */
static int make_token(const char *path, char *err, size_t errlen)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char bits[24];
	char text[2 * sizeof(bits) + 2];
	struct st_output out;
	int rc;

	if (getrandom(bits, sizeof(bits), 0) != (ssize_t)sizeof(bits)) {
		snprintf(err, errlen, "cannot make a token: no random bytes (%s)", strerror(errno));
		return -EIO;
	}
	for (size_t i = 0; i < sizeof(bits); i++) {
		text[2 * i] = hex[bits[i] >> 4];
		text[2 * i + 1] = hex[bits[i] & 15];
	}
	text[2 * sizeof(bits)] = '\n';
	text[2 * sizeof(bits) + 1] = '\0';
	explicit_bzero(bits, sizeof(bits));
	rc = st_output_make_parents(path, 0700);
	if (!rc)
		rc = st_output_replace(&out, path, ST_OUTPUT_PRIVATE);
	if (!rc)
		rc = st_output_finish(&out, st_output_write(out.f, text, strlen(text)));
	explicit_bzero(text, sizeof(text));
	if (rc < 0)
		snprintf(err, errlen, "cannot make the token file '%.200s': %s (give one with "
			 "--serve-token FILE)", path, st_output_strerror(rc));
	return rc;
}

int serve_load_token(const char *given, char *path, size_t path_len, char *token, size_t len,
		     bool *made, char *err, size_t errlen)
{
	int rc;

	*made = false;
	if (given)
		snprintf(path, path_len, "%s", given);
	else if (!st_config_path("serve-token", path, path_len)) {
		snprintf(err, errlen, "--serve needs a token file and neither HOME nor "
			 "XDG_CONFIG_HOME says where: give one with --serve-token FILE");
		return -EINVAL;
	}
	rc = serve_read_token(path, token, len, err, errlen);
	if (rc != -ENOENT)
		return rc;
	rc = make_token(path, err, errlen);
	if (rc < 0)
		return rc;
	*made = true;
	/* What is there now: another shimtop may have made it first. */
	return serve_read_token(path, token, len, err, errlen);
}
