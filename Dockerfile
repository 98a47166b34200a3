# Contagion Zero: one image for the trainer and the self-play workers.
#   docker build -t contagion:latest .
# Multi-stage: the build stage compiles the release binary (burn takes ~5 minutes on
# 2 cores); the runtime stage is a slim Debian with the binary, the configs and CA
# certificates (for https S3 endpoints) only.
FROM rust:1.95-slim-bookworm AS build
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY src ./src
# The workspace's other member (the example game); the image builds only the binary.
COPY examples/hexxagon ./examples/hexxagon
RUN cargo build --release --locked --bin contagion

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 10001 --create-home contagion
COPY --from=build /src/target/release/contagion /usr/local/bin/contagion
COPY configs /configs
USER contagion
WORKDIR /home/contagion
ENTRYPOINT ["contagion"]
CMD ["--help"]
