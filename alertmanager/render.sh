#!/bin/sh
# The Alertmanager container's entrypoint: writes its configuration from the environment
# (.env through compose; docs/alerts.md), then runs the command it is given. routing.yml is
# the routing; every receiver set in .env is added to both notifying receivers, and with none
# set the alerts are only kept and shown (Alertmanager's API and UI). Secrets (URLs, the SMTP
# password) go to files of their own, never into the configuration's text.
# POSIX sh: the official image is busybox, the stand-in Debian.
set -eu
here=$(dirname "$0")
out=${ALERTMANAGER_RENDERED_DIR:-/tmp/alertmanager}
umask 077
mkdir -p "$out"

# quote VALUE: VALUE as a YAML single-quoted scalar.
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/''/g")"; }
# secret NAME VALUE: VALUE into a file of its own; prints the file's path.
secret() { printf '%s' "$2" >"$out/$1"; printf '%s' "$out/$1"; }

if [ -n "${ALERT_EMAIL_TO:-}" ] \
  && { [ -z "${ALERT_EMAIL_FROM:-}" ] || [ -z "${ALERT_SMTP_SMARTHOST:-}" ]; }; then
  echo "render.sh: ALERT_EMAIL_TO needs ALERT_EMAIL_FROM and ALERT_SMTP_SMARTHOST (host:port)" >&2
  exit 2
fi

# receiver NAME SEND_RESOLVED: one receiver with every integration .env configures.
receiver() {
  echo "  - name: $1"
  if [ -n "${ALERT_WEBHOOK_URL:-}" ]; then
    echo "    webhook_configs:"
    echo "      - url_file: $(secret webhook_url "$ALERT_WEBHOOK_URL")"
    echo "        send_resolved: $2"
  fi
  if [ -n "${ALERT_SLACK_WEBHOOK_URL:-}" ]; then
    echo "    slack_configs:"
    echo "      - api_url_file: $(secret slack_webhook_url "$ALERT_SLACK_WEBHOOK_URL")"
    echo "        send_resolved: $2"
    echo "        title: '{{ template \"lab.title\" . }}'"
    echo "        text: '{{ template \"lab.text\" . }}'"
  fi
  if [ -n "${ALERT_EMAIL_TO:-}" ]; then
    echo "    email_configs:"
    echo "      - to: $(quote "$ALERT_EMAIL_TO")"
    echo "        from: $(quote "$ALERT_EMAIL_FROM")"
    echo "        smarthost: $(quote "$ALERT_SMTP_SMARTHOST")"
    echo "        require_tls: ${ALERT_SMTP_REQUIRE_TLS:-true}"
    echo "        send_resolved: $2"
    echo "        headers: {Subject: '{{ template \"lab.title\" . }}'}"
    echo "        text: '{{ template \"lab.text\" . }}'"
    if [ -n "${ALERT_SMTP_USERNAME:-}" ]; then
      echo "        auth_username: $(quote "$ALERT_SMTP_USERNAME")"
      echo "        auth_password_file: $(secret smtp_password "${ALERT_SMTP_PASSWORD:-}")"
    fi
  fi
}

{
  sed -e "s/@ALERT_GROUP_WAIT@/${ALERT_GROUP_WAIT:-30s}/" \
    -e "s/@ALERT_GROUP_INTERVAL@/${ALERT_GROUP_INTERVAL:-5m}/" "$here/routing.yml"
  echo
  echo "receivers:"
  echo "  - name: none"
  receiver notify true
  receiver notify-firing-only false
} >"$out/alertmanager.yml"

exec "$@"
