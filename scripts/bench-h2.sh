#!/usr/bin/env bash
# HTTP/2 replay benchmark (the "HTTP/2 and gRPC" issue), 127.0.0.1 only, all in one run:
#   (a) nginx serving a fixed response over HTTP/2 (h2c, prior knowledge), under h2load;
#   (b) `tapedeck replay` of a 1,000-interaction cassette over HTTP/2 (prior knowledge), under h2load;
#   (c) the same server over HTTP/1.1, under wrk;
#   (d) and (e) a bare SwiftNIO server (Benchmarks/BareServer) answering one fixed response over
#       HTTP/2 (h2load) and over HTTP/1.1 (wrk): what swift-nio-http2 itself costs per request
#       against SwiftNIO's HTTP/1.1, the floor under goal (b)/(c);
#   (f) the bare server over HTTP/2 with no stream channels (--http2-frames: one handler on the
#       connection answers each stream by its ID, as nginx does): what serving streams without
#       SwiftNIO's per-stream channels would cost.
# h2load opens 10 connections with 10 streams each in flight (100 streams); wrk keeps 100
# keep-alive connections, so both have 100 requests in flight. The servers are measured in ROUNDS
# alternating rounds, each starting one further along, and compared by their medians.
# Each run also reads the server's CPU time (user and system, from /proc) before and after, so
# every figure comes with the server's CPU microseconds per request: the cost the goals name,
# which throughput on two cores shared with the load generators only partly shows.
# Goals: (b)/(a) >= 0.5, and (b)/(c) >= 1 (HTTP/2 no more costly per request than HTTP/1.1).
# Needs h2load (nghttp2-client), wrk and nginx.
# Usage: scripts/bench-h2.sh [DURATION_SECONDS] [ROUNDS]   (defaults 10 and 3)
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${1:-10}"
ROUNDS="${2:-3}"

for tool in h2load wrk nginx; do
  command -v "$tool" >/dev/null || { echo "$tool is missing: apt-get install -y nghttp2-client wrk nginx-light" >&2; exit 1; }
done

source scripts/bench/release_build.sh

source scripts/bench/workspace.sh
chmod 755 "$WORK"   # nginx's worker (nobody) reads the body from here
python3 scripts/bench/make_cassette.py 1000 "$WORK/c1k.json"

# The measured servers, in the order they are printed: NAMES, and for each its LABEL, the PID
# whose CPU time is read, its PORT and its LOAD (h2: h2load; h1: wrk).
NAMES=()
declare -A LABEL SERVER_PID SERVER_PORT LOAD
# measured NAME LABEL LOAD: the server just started (PID, PORT) is measured as NAME.
measured() { NAMES+=("$1"); LABEL[$1]="$2"; LOAD[$1]="$3"; SERVER_PID[$1]="$PID"; SERVER_PORT[$1]="$PORT"; }

# The body tapedeck answers for /items/500, which nginx then serves too.
start replay "$BIN/tapedeck" replay "$WORK/c1k.json"
curl -sS -o "$WORK/item.json" "http://127.0.0.1:$PORT/items/500"
measured h2 "tapedeck h2" h2
measured h1 "tapedeck HTTP/1.1" h1

# Bare SwiftNIO servers answering one fixed response, over HTTP/2 and over HTTP/1.1.
start bareh2 "$BENCH_BIN/bare-server" --http2; measured bareh2 "bare h2" h2
start bareh1 "$BENCH_BIN/bare-server"; measured bareh1 "bare HTTP/1.1" h1
start frames "$BENCH_BIN/bare-server" --http2-frames; measured frames "bare h2 without stream channels" h2

NGINX_PORT="$(python3 scripts/bench/free_port.py)"
mkdir -p "$WORK/nginx"
cat >"$WORK/nginx/nginx.conf" <<CONF
daemon off; worker_processes 1; pid $WORK/nginx/nginx.pid; error_log $WORK/nginx/error.log;
events { worker_connections 1024; }
http { access_log off; keepalive_requests 100000000; client_body_temp_path $WORK/nginx/b; proxy_temp_path $WORK/nginx/p; fastcgi_temp_path $WORK/nginx/f;
  uwsgi_temp_path $WORK/nginx/u; scgi_temp_path $WORK/nginx/s;
  server { listen 127.0.0.1:$NGINX_PORT http2; location / { default_type application/json; root $WORK; try_files /item.json =404; } } }
CONF
nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" &
PIDS+=($!)
sleep 0.5
PID="$(pgrep -P "$!" | head -1)" PORT="$NGINX_PORT"   # its one worker, which answers
measured nginx "nginx h2" h2

h2() { h2load -c 10 -m 10 -t 2 -D "$DURATION" "$1" 2>/dev/null | sed -nE 's/^finished in [^,]*, ([0-9.]+) req\/s.*/\1/p'; }
h1() { wrk -t2 -c100 -d"$DURATION"s "$1" | awk '/Requests\/sec/ {print $2}'; }

# measure NAME: one run against that server; prints its requests a second and the server's CPU
# microseconds per request.
measure() {
  local pid="${SERVER_PID[$1]}" rate before
  before="$(cpu_ticks "$pid")"
  rate="$("${LOAD[$1]}" "http://127.0.0.1:${SERVER_PORT[$1]}/items/500")"
  echo "$rate $(cpu_per_request "$pid" "$before" "$(awk -v rate="$rate" -v seconds="$DURATION" 'BEGIN { print rate * seconds }')")"
}
# each TABLE [SUFFIX]: every server's label and its figure in TABLE (key NAME followed by SUFFIX), in one line.
each() { local -n table="$1"; local name line=""; for name in "${NAMES[@]}"; do line+="${line:+, }${LABEL[$name]} ${table[$name${2:-}]}"; done; echo "$line"; }
echo "== 100 requests in flight, ${DURATION}s each; ${ROUNDS} rounds of: $(IFS=,; echo "${NAMES[*]}") =="
declare -A RESULTS CPU
for round in $(seq 1 "$ROUNDS"); do
  for step in "${!NAMES[@]}"; do
    name="${NAMES[$(( (round - 1 + step) % ${#NAMES[@]} ))]}"
    read -r "RESULTS[$name.$round]" "CPU[$name.$round]" <<<"$(measure "$name")"
  done
  echo "  round $round, req/s: $(each RESULTS ".$round");" \
       "h2/nginx $(ratio "${RESULTS[h2.$round]}" "${RESULTS[nginx.$round]}"), h2/HTTP/1.1 $(ratio "${RESULTS[h2.$round]}" "${RESULTS[h1.$round]}")," \
       "bare h2/HTTP/1.1 $(ratio "${RESULTS[bareh2.$round]}" "${RESULTS[bareh1.$round]}")"
  echo "    server CPU µs per request: $(each CPU ".$round")"
done
# median_of TABLE NAME: the median over the rounds of NAME's figures in TABLE (RESULTS or CPU).
median_of() { local -n table="$1"; local round; for round in $(seq 1 "$ROUNDS"); do echo "${table[$2.$round]}"; done | median; }
declare -A MEDIAN CPU_MEDIAN
for name in "${NAMES[@]}"; do MEDIAN[$name]="$(median_of RESULTS "$name")"; CPU_MEDIAN[$name]="$(median_of CPU "$name")"; done
echo "medians, req/s: $(each MEDIAN)"
echo "tapedeck h2 / nginx h2: $(ratio "${MEDIAN[h2]}" "${MEDIAN[nginx]}") (goal >= 0.5)"
echo "tapedeck h2 / tapedeck HTTP/1.1: $(ratio "${MEDIAN[h2]}" "${MEDIAN[h1]}") (goal >= 1.0)"
echo "bare SwiftNIO h2 / bare SwiftNIO HTTP/1.1: $(ratio "${MEDIAN[bareh2]}" "${MEDIAN[bareh1]}") (the libraries' own ratio)"
echo "tapedeck h2 / bare h2: $(ratio "${MEDIAN[h2]}" "${MEDIAN[bareh2]}"), tapedeck HTTP/1.1 / bare HTTP/1.1: $(ratio "${MEDIAN[h1]}" "${MEDIAN[bareh1]}")"
echo "server CPU µs per request, medians: $(each CPU_MEDIAN)"
echo "CPU per request, tapedeck h2 / tapedeck HTTP/1.1: $(ratio "${CPU_MEDIAN[h2]}" "${CPU_MEDIAN[h1]}") (goal <= 1.0);" \
     "bare h2 / bare HTTP/1.1: $(ratio "${CPU_MEDIAN[bareh2]}" "${CPU_MEDIAN[bareh1]}"); bare h2 / tapedeck HTTP/1.1: $(ratio "${CPU_MEDIAN[bareh2]}" "${CPU_MEDIAN[h1]}");" \
     "bare h2 without stream channels / bare h2: $(ratio "${CPU_MEDIAN[frames]}" "${CPU_MEDIAN[bareh2]}")"
