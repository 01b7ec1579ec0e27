# The crypto sweep (included by the root Makefile; docs/crypto.md): plan crypto-sweep once per
# step, each step a device that offers one SSH key exchange and one TLS group, then its tables.
##@ Crypto sweep
# Steps, run in this order (the first is the reference of the cost tables): name=SSH key
# exchange/TLS group. Classical X25519 (by its libssh name, the one paramiko implements; the
# same key exchange as RFC 8731's curve25519-sha256), NIST P-256, SSH's finite-field group 14 (with X25519
# again for TLS: a repeat of the reference, the step-to-step noise; TLS's ffdhe2048 is left
# out, as the device's health check speaks Go's TLS, which has no finite-field groups), and
# the post-quantum hybrids: ML-KEM (OpenSSH 9.9+, OpenSSL 3.5) and Streamlined NTRU Prime
# (OpenSSH 9.0+) with the NIST-curve ML-KEM hybrid of OpenSSL 3.5.
CRYPTO_STEPS ?= x25519=curve25519-sha256@libssh.org/X25519 \
  p256=ecdh-sha2-nistp256/prime256v1 \
  group14=diffie-hellman-group14-sha256/X25519 \
  mlkem768=mlkem768x25519-sha256/X25519MLKEM768 \
  sntrup761=sntrup761x25519-sha512@openssh.com/SecP256r1MLKEM768
# Every step on the `modern` profile (the device's OpenSSH and OpenSSL defaults, which offer
# every name above on Debian 13): only the held key exchange and group differ between steps.
CRYPTO_PROFILE ?= modern

.PHONY: crypto-sweep

# The device (and netem, which lives in its network namespace) is recreated for each step:
# sshd and nginx read their lists at start. The step's settings stay exported while its run
# starts, or compose would recreate the device as .env has it. The lab is put back as .env has
# it afterwards, whatever happened. A client that cannot use a step's algorithm fails its
# series, and the run exits 1: that is what the sweep finds out (its rows say why), not a
# failure of the sweep; any other exit is. Every step runs even when one fails; a step whose
# device did not hold its names has no table (crypto-table refuses it).
crypto-sweep: .env ## Every handshake mode x client per held SSH key exchange and TLS group (CRYPTO_STEPS), then results/crypto-<time>/crypto.md (~30 min)
	$(COMPOSE) --profile tools build bench-runner
	stamp=crypto-$$(date -u +%Y%m%dT%H%M%SZ); status=0; \
	as_env() { unset DEVICE_CRYPTO_PROFILE DEVICE_CRYPTO_KEX DEVICE_CRYPTO_TLS_GROUP; }; \
	restore() { as_env; $(COMPOSE) up -d --wait --force-recreate device netem >/dev/null; }; \
	trap restore EXIT; \
	for step in $(CRYPTO_STEPS); do \
	  name=$${step%%=*}; held=$${step#*=}; \
	  echo "=== crypto-sweep: $$name: SSH $${held%/*}, TLS $${held#*/}"; \
	  export DEVICE_CRYPTO_PROFILE=$(CRYPTO_PROFILE) DEVICE_CRYPTO_KEX="$${held%/*}" \
	    DEVICE_CRYPTO_TLS_GROUP="$${held#*/}"; \
	  $(COMPOSE) up -d --wait --force-recreate device netem || { status=1; continue; }; \
	  $(COMPOSE) run --rm bench-runner run --plan crypto-sweep --run-id $$stamp-$$name \
	    || { rc=$$?; [ $$rc -eq 1 ] || [ $$status -ne 0 ] || status=$$rc; }; \
	done; \
	as_env; \
	$(COMPOSE) run --rm --no-deps bench-runner crypto-table $$stamp \
	  || { rc=$$?; [ $$status -ne 0 ] || status=$$rc; }; \
	echo "tables: results/$$stamp/crypto.md"; exit $$status
