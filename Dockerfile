# The replay server (and every other tapedeck command) in a container, for CI machines without Swift.
#   docker build -t tapedeck .
#   docker run --rm -p 127.0.0.1:8080:8080 -v "$PWD/cassettes:/cassettes:ro" tapedeck \
#       replay --host 0.0.0.0 --port 8080 /cassettes/my.json
# Without arguments it serves the example cassette. Not built on the machines this repository is
# developed on (they run no Docker engine); Tests/TapedeckToolingTests/PackagingTests.swift checks
# what can be checked without one.

# Build: the release archive of scripts/release.sh (Swift runtime linked statically, stripped,
# checked to run with an empty environment), unpacked into /out.
FROM swift:6.1-bookworm AS build
# zlib for gzip bodies, OpenSSL's libcrypto for SHA-256.
RUN apt-get update \
    && apt-get install -y --no-install-recommends zlib1g-dev libssl-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift LICENSE ./
COPY Sources Sources
COPY Tests Tests
COPY Examples/APIClient Examples/APIClient
COPY scripts/release.sh scripts/release.sh
COPY packaging/archive packaging/archive
COPY cassettes/example.json cassettes/example.json
RUN scripts/release.sh \
    && mkdir /out \
    && tar -xzf dist/tapedeck-*.tar.gz -C /out --strip-components=1

# Run: a slim Debian with the shared libraries the binary still links (libcrypto, libstdc++, zlib), curl
# for the health check, and an unprivileged user whose home holds the local CA ($TAPEDECK_HOME,
# created on first need).
FROM debian:bookworm-slim AS runtime
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates curl libssl3 libstdc++6 zlib1g \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 10001 --user-group tapedeck
COPY --from=build /out/tapedeck /usr/local/bin/tapedeck
COPY --from=build /out/LICENSE /usr/share/doc/tapedeck/LICENSE
COPY --from=build /out/completions/tapedeck.bash /usr/share/bash-completion/completions/tapedeck
COPY --from=build --chown=tapedeck:tapedeck /out/cassettes/example.json /cassettes/example.json
USER tapedeck
ENV TAPEDECK_HOME=/home/tapedeck/.tapedeck
WORKDIR /home/tapedeck
EXPOSE 8080
# A listening address other than loopback makes tapedeck print a warning that the server is reachable
# from beyond this machine: in a container that is the point. Publish the port on 127.0.0.1 (as above)
# to keep it on the host, or add --proxy-auth USER:PASSWORD.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD curl --fail --silent --show-error http://127.0.0.1:8080/__tapedeck/health || exit 1
ENTRYPOINT ["tapedeck"]
CMD ["replay", "--host", "0.0.0.0", "--port", "8080", "/cassettes/example.json"]
