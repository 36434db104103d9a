# kubesched's container image: `docker build -t kubesched:latest .` (deploy/ runs it).
# The package is installed with the `live` extra (the Kubernetes client `kubesched run` needs);
# the image runs as an unprivileged numeric user, so `runAsNonRoot` can verify it, and writes
# nothing to its root filesystem (no bytecode caches), so it runs with readOnlyRootFilesystem.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /build
COPY pyproject.toml README.md ./
COPY src ./src
RUN pip install ".[live]" \
    && rm -rf /build \
    && groupadd --system --gid 65532 kubesched \
    && useradd --system --uid 65532 --gid 65532 --no-create-home --home-dir /nonexistent \
       --shell /usr/sbin/nologin kubesched

WORKDIR /
USER 65532:65532
EXPOSE 10259
ENTRYPOINT ["kubesched"]
CMD ["run"]
