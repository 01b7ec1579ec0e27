/*
 * nfq-delayer: user-space WAN emulator for one NFQUEUE.
 *
 * Every packet that iptables sends to the queue is held until
 *   release = departure + delay + jitter,  departure = max(now, last) + size*8/rate
 * (with keep_order, never before the packet ahead of it) and then accepted;
 * packets are dropped with probability `loss` or when more than `limit` are held.
 * Loss and jitter are drawn per wire packet: while either is set the kernel
 * segments GSO super-packets before queueing them (see apply_segmentation). Only a packet's id and first bytes cross into user
 * space, so the per-packet cost is two small netlink messages, fewer when the
 * packets due at once are accepted with one batch verdict. Protocol-agnostic:
 * only the IPv4 total length is read (for the rate), so TCP and UDP (QUIC)
 * are held alike.
 *
 * Parameters live in a key=value file, read at start and again on SIGHUP, so
 * the controller changes the profile without losing held packets. Counters and
 * the applied generation are written to a stats file every second and after
 * each reload; the controller uses it as a liveness and reload acknowledgement.
 *
 * usage: nfq-delayer --queue-num N --params FILE --stats FILE
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/netfilter.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <libnetfilter_queue/libnetfilter_queue.h>

#define COPY_RANGE 128          /* IPv4 + TCP/UDP headers; the payload stays in the kernel */
#define QUEUE_MAXLEN 65536      /* kernel-side backlog before it drops */
#define SOCKET_RCVBUF (16 << 20)
#define STATS_INTERVAL_S 1
#define LOG_INTERVAL_S 60
/* Timer wake-ups arrive tens of microseconds late (more after deep idle), so the timer fires this
 * much early and the last stretch is spun on the clock. Costs at most this much CPU per wake-up. */
#define SPIN_NS 200000
/* A kernel receive timestamp older than this is not trusted (e.g. a clock step); `now` is used instead. */
#define MAX_STAMP_AGE_NS 50000000

struct params {
	uint64_t generation;
	int64_t delay_ns;
	int64_t jitter_ns;
	uint32_t loss_ppm;
	uint64_t rate_bps;
	uint32_t limit;
	bool keep_order;        /* jittered packets leave in arrival order, as behind a FIFO */
};

struct held_packet {
	int64_t release_ns;
	uint64_t seq;           /* tie-break: equal release times leave in arrival order */
	uint32_t id;
	int jittered;           /* its release time was drawn at random: may leave out of order */
};

struct counters {
	uint64_t received, accepted, dropped_loss, dropped_limit, enobufs, verdict_errors, kernel_stamped;
	uint64_t verdict_messages;
};

struct delayer {
	int queue_num;
	const char *params_path;
	const char *stats_path;
	struct params params;
	struct counters counters;
	struct nfq_q_handle *queue;
	struct held_packet *heap;
	size_t held, capacity;
	size_t jittered_held;
	uint64_t next_seq;
	int64_t last_departure_ns;
	int64_t last_release_ns;
	uint64_t rng_state;
	bool segmented;         /* the kernel hands over wire packets, not GSO super-packets */
};

static void logf_stderr(const struct delayer *d, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "nfq-delayer[queue %d]: ", d->queue_num);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int64_t clock_ns(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* When the packet reached the host, on the monotonic clock. Without this, the delay would start
 * when the delayer wakes up, and every wake-up latency would add to the emulated delay. The kernel
 * stamps received packets (CLOCK_REALTIME) while some socket has asked for timestamps, which
 * enable_kernel_timestamps() does; packets the host sends itself carry no such stamp. */
static int64_t arrival_ns(struct delayer *d, struct nfq_data *nfa, int64_t now)
{
	struct timeval tv;
	if (nfq_get_timestamp(nfa, &tv) != 0)
		return now;
	int64_t age = clock_ns(CLOCK_REALTIME) - ((int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000);
	if (age < 0 || age > MAX_STAMP_AGE_NS)
		return now;
	d->counters.kernel_stamped++;
	return now - age;
}

/* xorshift64*: fast, and statistical quality is ample for loss and jitter draws. */
static double random_unit(struct delayer *d)
{
	uint64_t x = d->rng_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	d->rng_state = x;
	return (double)((x * 0x2545F4914F6CDD1DULL) >> 11) * 0x1.0p-53;
}

static int parse_params(const char *path, struct params *out, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	struct params p = {0};
	unsigned seen = 0;
	char line[256];
	int rc = 0;
	while (fgets(line, sizeof line, f)) {
		char key[64];
		unsigned long long value;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%63[a-z_]=%llu", key, &value) != 2) {
			snprintf(err, errlen, "bad line in %s: %s", path, line);
			rc = -1;
			break;
		}
		if (!strcmp(key, "generation")) {
			p.generation = value; seen |= 1;
		} else if (!strcmp(key, "delay_us")) {
			p.delay_ns = (int64_t)value * 1000; seen |= 2;
		} else if (!strcmp(key, "jitter_us")) {
			p.jitter_ns = (int64_t)value * 1000; seen |= 4;
		} else if (!strcmp(key, "loss_ppm") && value <= 1000000) {
			p.loss_ppm = (uint32_t)value; seen |= 8;
		} else if (!strcmp(key, "rate_bps")) {
			p.rate_bps = value; seen |= 16;
		} else if (!strcmp(key, "limit_packets") && value >= 1 && value <= 10000000) {
			p.limit = (uint32_t)value; seen |= 32;
		} else if (!strcmp(key, "keep_order") && value <= 1) {
			p.keep_order = value == 1; seen |= 64;
		} else {
			snprintf(err, errlen, "unknown key or value out of range in %s: %s", path, line);
			rc = -1;
			break;
		}
	}
	fclose(f);
	if (rc == 0 && seen != 127) {
		snprintf(err, errlen, "%s lacks one of generation, delay_us, jitter_us, loss_ppm, rate_bps, limit_packets, keep_order", path);
		rc = -1;
	}
	if (rc == 0)
		*out = p;
	return rc;
}

static void log_params(const struct delayer *d, const char *what)
{
	const struct params *p = &d->params;
	logf_stderr(d, "%s generation=%" PRIu64 " delay_us=%" PRId64 " jitter_us=%" PRId64
		    " loss_ppm=%u rate_bps=%" PRIu64 " limit_packets=%u keep_order=%d segmented=%d",
		    what, p->generation, p->delay_ns / 1000, p->jitter_ns / 1000,
		    p->loss_ppm, p->rate_bps, p->limit, p->keep_order, d->segmented);
}

static void log_counters(const struct delayer *d, const char *what)
{
	const struct counters *c = &d->counters;
	logf_stderr(d, "%s received=%" PRIu64 " accepted=%" PRIu64 " dropped_loss=%" PRIu64
		    " dropped_limit=%" PRIu64 " enobufs=%" PRIu64 " verdict_errors=%" PRIu64
		    " kernel_stamped=%" PRIu64 " verdict_messages=%" PRIu64 " held=%zu",
		    what, c->received, c->accepted, c->dropped_loss, c->dropped_limit,
		    c->enobufs, c->verdict_errors, c->kernel_stamped, c->verdict_messages, d->held);
}

static void write_stats(const struct delayer *d)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", d->stats_path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		logf_stderr(d, "cannot write %s: %s", tmp, strerror(errno));
		return;
	}
	const struct counters *c = &d->counters;
	fprintf(f, "generation=%" PRIu64 "\npid=%d\nheld=%zu\nreceived=%" PRIu64 "\naccepted=%" PRIu64
		"\ndropped_loss=%" PRIu64 "\ndropped_limit=%" PRIu64 "\nenobufs=%" PRIu64
		"\nverdict_errors=%" PRIu64 "\nkernel_stamped=%" PRIu64 "\nverdict_messages=%" PRIu64
		"\nsegmented=%d\n",
		d->params.generation, (int)getpid(), d->held, c->received, c->accepted,
		c->dropped_loss, c->dropped_limit, c->enobufs, c->verdict_errors, c->kernel_stamped,
		c->verdict_messages, d->segmented);
	if (fclose(f) != 0 || rename(tmp, d->stats_path) != 0)
		logf_stderr(d, "cannot update %s: %s", d->stats_path, strerror(errno));
}

static int earlier(const struct held_packet *a, const struct held_packet *b)
{
	return a->release_ns < b->release_ns || (a->release_ns == b->release_ns && a->seq < b->seq);
}

static int heap_push(struct delayer *d, struct held_packet pkt)
{
	if (d->held == d->capacity) {
		size_t capacity = d->capacity ? d->capacity * 2 : 1024;
		struct held_packet *grown = realloc(d->heap, capacity * sizeof *grown);
		if (!grown)
			return -1;
		d->heap = grown;
		d->capacity = capacity;
	}
	size_t i = d->held++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!earlier(&pkt, &d->heap[parent]))
			break;
		d->heap[i] = d->heap[parent];
		i = parent;
	}
	d->heap[i] = pkt;
	return 0;
}

static struct held_packet heap_pop(struct delayer *d)
{
	struct held_packet top = d->heap[0];
	struct held_packet last = d->heap[--d->held];
	size_t i = 0;
	for (;;) {
		size_t child = 2 * i + 1;
		if (child >= d->held)
			break;
		if (child + 1 < d->held && earlier(&d->heap[child + 1], &d->heap[child]))
			child++;
		if (!earlier(&d->heap[child], &last))
			break;
		d->heap[i] = d->heap[child];
		i = child;
	}
	if (d->held)
		d->heap[i] = last;
	return top;
}

static void verdict(struct delayer *d, uint32_t id, uint32_t decision)
{
	d->counters.verdict_messages++;
	if (nfq_set_verdict(d->queue, id, decision, 0, NULL) < 0)
		d->counters.verdict_errors++;
	else if (decision == NF_ACCEPT)
		d->counters.accepted++;
}

/* Accepts every packet of the queue with an id up to `last_id` in one message. */
static void accept_batch(struct delayer *d, uint32_t last_id, uint64_t packets)
{
	d->counters.verdict_messages++;
	if (nfq_set_verdict_batch(d->queue, last_id, NF_ACCEPT) < 0)
		d->counters.verdict_errors += packets;
	else
		d->counters.accepted += packets;
}

static struct held_packet release_top(struct delayer *d)
{
	struct held_packet pkt = heap_pop(d);
	if (pkt.jittered)
		d->jittered_held--;
	return pkt;
}

static uint32_t packet_bytes(struct nfq_data *nfa)
{
	unsigned char *payload;
	int len = nfq_get_payload(nfa, &payload);
	if (len >= 20 && (payload[0] >> 4) == 4)
		return ((uint32_t)payload[2] << 8) | payload[3];   /* IPv4 total length, also for GSO */
	return len > 0 ? (uint32_t)len : 0;
}

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfa, void *ctx)
{
	(void)qh;
	(void)msg;
	struct delayer *d = ctx;
	struct nfqnl_msg_packet_hdr *hdr = nfq_get_msg_packet_hdr(nfa);
	if (!hdr)
		return 0;
	uint32_t id = ntohl(hdr->packet_id);
	int64_t arrival = arrival_ns(d, nfa, now_ns());
	const struct params *p = &d->params;
	d->counters.received++;

	if (p->loss_ppm && random_unit(d) * 1e6 < p->loss_ppm) {
		d->counters.dropped_loss++;
		verdict(d, id, NF_DROP);
		return 0;
	}
	if (d->held >= p->limit) {
		d->counters.dropped_limit++;
		verdict(d, id, NF_DROP);
		return 0;
	}

	int64_t departure = arrival;
	if (p->rate_bps) {
		if (d->last_departure_ns > departure)
			departure = d->last_departure_ns;
		departure += (int64_t)((double)packet_bytes(nfa) * 8e9 / (double)p->rate_bps);
		d->last_departure_ns = departure;
	}
	int64_t release = departure + p->delay_ns;
	bool may_overtake = p->jitter_ns && !p->keep_order;
	if (p->jitter_ns) {
		release += (int64_t)((2.0 * random_unit(d) - 1.0) * (double)p->jitter_ns);
		if (release < departure)
			release = departure;
	}
	/* FIFO: no packet leaves before the one ahead of it (also when a reload shortened the delay). */
	if (!may_overtake && release < d->last_release_ns)
		release = d->last_release_ns;
	d->last_release_ns = release;

	struct held_packet pkt = {.release_ns = release, .seq = d->next_seq++, .id = id, .jittered = may_overtake};
	if (heap_push(d, pkt) < 0) {
		d->counters.dropped_limit++;
		verdict(d, id, NF_DROP);
	} else if (pkt.jittered) {
		d->jittered_held++;
	}
	return 0;
}

/* Releases the packets that are due, spinning on the clock for those due within SPIN_NS.
 * Without jittered packets held, the heap releases in arrival order, which is packet id order,
 * and every packet with a smaller id has had its verdict: the packets due at the same moment
 * leave with one batch verdict for the last of them. */
static void release_due(struct delayer *d)
{
	int64_t now = now_ns();
	while (d->held && d->heap[0].release_ns - SPIN_NS <= now) {
		while (d->heap[0].release_ns > now)
			now = now_ns();
		int in_order = d->jittered_held == 0;
		uint32_t last_id = 0;
		uint64_t batch = 0;
		while (d->held && d->heap[0].release_ns <= now) {
			struct held_packet pkt = release_top(d);
			if (in_order) {
				last_id = pkt.id;
				batch++;
			} else {
				verdict(d, pkt.id, NF_ACCEPT);
			}
		}
		if (batch)
			accept_batch(d, last_id, batch);
		now = now_ns();
	}
}

static void arm_release_timer(struct delayer *d, int timer_fd)
{
	struct itimerspec when = {0};
	if (d->held) {
		int64_t t = d->heap[0].release_ns - SPIN_NS;
		when.it_value.tv_sec = t / 1000000000;
		when.it_value.tv_nsec = t % 1000000000;
	}
	timerfd_settime(timer_fd, TFD_TIMER_ABSTIME, &when, NULL);
}

/* Loss and jitter drawn per GSO super-packet would hit up to 45 wire packets at once (a 64 KiB
 * TCP burst) and make "1 % loss" mean far more. While either is set, the queue is told not to
 * take GSO packets whole, and the kernel segments them into wire packets before queueing (more
 * packets to hold, so the flag comes back on for delay-only profiles, as before). */
static void apply_segmentation(struct delayer *d)
{
	bool segment = d->params.loss_ppm || d->params.jitter_ns;
	if (nfq_set_queue_flags(d->queue, NFQA_CFG_F_GSO, segment ? 0 : NFQA_CFG_F_GSO) == 0) {
		d->segmented = segment;
	} else if (!segment) {
		/* A new queue segments until told otherwise: the old behaviour, only slower. */
		logf_stderr(d, "kernel refuses NFQA_CFG_F_GSO (%s); packets arrive segmented", strerror(errno));
		d->segmented = true;
	} else {
		logf_stderr(d, "cannot clear NFQA_CFG_F_GSO (%s); loss and jitter may hit whole GSO packets", strerror(errno));
	}
}

static void reload(struct delayer *d)
{
	char err[512];
	struct params p;
	if (parse_params(d->params_path, &p, err, sizeof err) < 0) {
		logf_stderr(d, "reload failed, keeping generation %" PRIu64 ": %s", d->params.generation, err);
		return;
	}
	d->params = p;
	apply_segmentation(d);
	log_params(d, "reloaded");
	write_stats(d);
}

static void drain_socket(struct delayer *d, struct nfq_handle *h, int fd)
{
	char buf[8192] __attribute__((aligned));
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
		if (n > 0) {
			nfq_handle_packet(h, buf, (int)n);
			continue;
		}
		if (n < 0 && errno == ENOBUFS) {
			d->counters.enobufs++;   /* kernel dropped queued packets: counted, not fatal */
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		logf_stderr(d, "netlink recv failed: %s", n < 0 ? strerror(errno) : "socket closed");
		exit(1);
	}
}

static void raise_scheduling_priority(const struct delayer *d)
{
	/* Wake-up latency is the delayer's error budget; real-time priority and a 1 ns
	 * timer slack keep it low. Without CAP_SYS_NICE it runs at normal priority. */
	prctl(PR_SET_TIMERSLACK, 1UL);
	struct sched_param sp = {.sched_priority = 10};
	if (sched_setscheduler(0, SCHED_FIFO, &sp) == 0)
		return;
	/* Docker grants no real-time runtime by default (cpu.rt_runtime_us = 0) even with
	 * CAP_SYS_NICE; the highest normal priority still wins most wake-up races. */
	int fifo_errno = errno;
	if (setpriority(PRIO_PROCESS, 0, -20) == 0)
		logf_stderr(d, "SCHED_FIFO unavailable (%s); running at nice -20", strerror(fifo_errno));
	else
		logf_stderr(d, "SCHED_FIFO unavailable (%s), nice -20 too (%s); running at normal priority",
			    strerror(fifo_errno), strerror(errno));
}

static int open_queue(struct delayer *d, struct nfq_handle **handle)
{
	struct nfq_handle *h = nfq_open();
	if (!h) {
		logf_stderr(d, "nfq_open failed: %s", strerror(errno));
		return -1;
	}
	d->queue = nfq_create_queue(h, (uint16_t)d->queue_num, on_packet, d);
	if (!d->queue) {
		logf_stderr(d, "cannot bind queue (another process owns it?): %s", strerror(errno));
		return -1;
	}
	if (nfq_set_mode(d->queue, NFQNL_COPY_PACKET, COPY_RANGE) < 0 ||
	    nfq_set_queue_maxlen(d->queue, QUEUE_MAXLEN) < 0) {
		logf_stderr(d, "cannot configure queue: %s", strerror(errno));
		return -1;
	}
	apply_segmentation(d);
	int fd = nfq_fd(h);
	int size = SOCKET_RCVBUF;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
	*handle = h;
	return fd;
}

/* A socket that asks for receive timestamps makes the kernel stamp every received packet
 * (net_enable_timestamp); it is kept open for the delayer's lifetime and never read. */
static void enable_kernel_timestamps(const struct delayer *d)
{
	int one = 1;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_TIMESTAMP, &one, sizeof one) < 0)
		logf_stderr(d, "cannot enable kernel receive timestamps (%s); delays start at wake-up", strerror(errno));
}

/* A clean stop: let held packets go rather than drop them, say what was done, exit 0. */
static int stop(struct delayer *d, struct nfq_handle *h, const char *why)
{
	while (d->held)
		verdict(d, release_top(d).id, NF_ACCEPT);
	log_counters(d, why);
	write_stats(d);
	nfq_destroy_queue(d->queue);
	nfq_close(h);
	return 0;
}

static int make_signal_fd(void)
{
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	return signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
}

static int make_stats_timer(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	struct itimerspec every = {.it_interval = {STATS_INTERVAL_S, 0}, .it_value = {STATS_INTERVAL_S, 0}};
	timerfd_settime(fd, 0, &every, NULL);
	return fd;
}

static void usage(void)
{
	fprintf(stderr, "usage: nfq-delayer --queue-num N --params FILE --stats FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct delayer d = {.queue_num = -1, .segmented = true};
	static const struct option options[] = {
		{"queue-num", required_argument, NULL, 'q'},
		{"params", required_argument, NULL, 'p'},
		{"stats", required_argument, NULL, 's'},
		{NULL, 0, NULL, 0},
	};
	int opt;
	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (opt == 'q')
			d.queue_num = atoi(optarg);
		else if (opt == 'p')
			d.params_path = optarg;
		else if (opt == 's')
			d.stats_path = optarg;
		else
			usage();
	}
	if (d.queue_num < 0 || d.queue_num > 65535 || !d.params_path || !d.stats_path || optind != argc)
		usage();

	setvbuf(stderr, NULL, _IOLBF, 0);
	if (getrandom(&d.rng_state, sizeof d.rng_state, 0) != sizeof d.rng_state || !d.rng_state)
		d.rng_state = (uint64_t)now_ns() | 1;

	char err[512];
	if (parse_params(d.params_path, &d.params, err, sizeof err) < 0) {
		logf_stderr(&d, "%s", err);
		return 1;
	}
	int signal_fd = make_signal_fd();
	struct nfq_handle *h;
	int nl_fd = open_queue(&d, &h);
	if (nl_fd < 0)
		return 1;
	raise_scheduling_priority(&d);
	enable_kernel_timestamps(&d);
	int release_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	int stats_fd = make_stats_timer();
	int ep = epoll_create1(EPOLL_CLOEXEC);
	int fds[] = {nl_fd, release_fd, stats_fd, signal_fd};
	for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++) {
		struct epoll_event ev = {.events = EPOLLIN, .data.fd = fds[i]};
		if (fds[i] < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fds[i], &ev) < 0) {
			logf_stderr(&d, "event setup failed: %s", strerror(errno));
			return 1;
		}
	}
	/* Never outlive the controller: it holds the write end of our stdin, which closes when
	 * it exits. (PR_SET_PDEATHSIG follows the spawning thread, not the process.) A stdin
	 * that cannot be watched (a terminal, /dev/null: started by hand) is not a controller. */
	struct epoll_event parent_ev = {.events = EPOLLIN, .data.fd = STDIN_FILENO};
	bool watch_parent = epoll_ctl(ep, EPOLL_CTL_ADD, STDIN_FILENO, &parent_ev) == 0;
	if (!watch_parent && errno != EPERM) {
		logf_stderr(&d, "event setup failed for stdin: %s", strerror(errno));
		return 1;
	}
	write_stats(&d);
	log_params(&d, "ready");

	int64_t next_log_ns = now_ns() + (int64_t)LOG_INTERVAL_S * 1000000000;
	for (;;) {
		struct epoll_event events[4];
		int n = epoll_wait(ep, events, 4, -1);
		if (n < 0 && errno != EINTR) {
			logf_stderr(&d, "epoll_wait failed: %s", strerror(errno));
			return 1;
		}
		for (int i = 0; i < n; i++) {
			int fd = events[i].data.fd;
			uint64_t expirations;
			if (fd == nl_fd) {
				drain_socket(&d, h, nl_fd);
			} else if (fd == release_fd) {
				if (read(release_fd, &expirations, sizeof expirations) < 0 && errno != EAGAIN)
					logf_stderr(&d, "timer read failed: %s", strerror(errno));
			} else if (fd == stats_fd) {
				if (read(stats_fd, &expirations, sizeof expirations) > 0)
					write_stats(&d);
				if (now_ns() >= next_log_ns) {
					log_counters(&d, "counters");
					next_log_ns += (int64_t)LOG_INTERVAL_S * 1000000000;
				}
			} else if (fd == STDIN_FILENO && watch_parent) {
				char byte;
				if (read(STDIN_FILENO, &byte, 1) <= 0)
					return stop(&d, h, "controller gone, stopping");
			} else if (fd == signal_fd) {
				struct signalfd_siginfo si;
				while (read(signal_fd, &si, sizeof si) == sizeof si) {
					if (si.ssi_signo == SIGHUP) {
						reload(&d);
						continue;
					}
					return stop(&d, h, "stopping");
				}
			}
		}
		release_due(&d);
		arm_release_timer(&d, release_fd);
	}
}
