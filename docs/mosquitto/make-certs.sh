#!/bin/sh
# Makes a certificate authority for the club and a server certificate for the broker, with openssl.
#   sh make-certs.sh DIR HOSTNAME [IP]      e.g. sh make-certs.sh /etc/mosquitto/flickboard broker.club.lan 192.168.1.10
# Writes DIR/ca.crt (give this one to every client: --ca-file), DIR/ca.key (keep it offline), DIR/server.crt and
# DIR/server.key (the broker's). The server certificate names HOSTNAME, and IP if given: clients must connect by
# one of those names. Valid 825 days; run it again to renew (the old ca.key is kept if present).
set -eu
dir=${1:?usage: make-certs.sh DIR HOSTNAME [IP]}
host=${2:?usage: make-certs.sh DIR HOSTNAME [IP]}
ip=${3:-}
mkdir -p "$dir"
umask 077
san="DNS:$host"
[ -n "$ip" ] && san="$san,IP:$ip"
if [ ! -f "$dir/ca.key" ]; then
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=Flickboard club CA" \
    -keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
fi
openssl req -newkey rsa:2048 -nodes -subj "/CN=$host" -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null
printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$san" > "$dir/server.ext"
openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial -days 825 \
  -extfile "$dir/server.ext" -out "$dir/server.crt" 2>/dev/null
rm -f "$dir/server.csr" "$dir/server.ext"
chmod 644 "$dir/ca.crt" "$dir/server.crt"
echo "made $dir/ca.crt, $dir/server.crt and $dir/server.key for $san"
