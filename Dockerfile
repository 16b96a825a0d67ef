# Tressette Scoresheet: the same steps as `make serve` (bin/entrypoint), in a slim image.
FROM python:3.13-slim AS build
ENV UV_PYTHON_DOWNLOADS=never UV_LINK_MODE=copy UV_COMPILE_BYTECODE=1
RUN pip install --no-cache-dir uv==0.13.9
WORKDIR /app
COPY pyproject.toml uv.lock .python-version ./
RUN uv sync --frozen --no-dev
COPY . .
RUN DJANGO_SECRET_KEY=build-only .venv/bin/python manage.py collectstatic --no-input -v 0

FROM python:3.13-slim
RUN useradd --create-home --uid 1000 app && mkdir /data && chown app /data
WORKDIR /app
# The code stays root's, read-only to the app; it writes only to /data.
COPY --from=build /app /app
USER app
ENV PATH=/app/.venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHON=/app/.venv/bin/python \
    DJANGO_VAR_DIR=/data \
    BIND=0.0.0.0:8000 \
    DJANGO_SECURE_SSL_REDIRECT=1 \
    SKIP_COLLECTSTATIC=1 \
    DJANGO_ALLOWED_HOSTS=localhost
VOLUME /data
EXPOSE 8000
# Run it with a restart policy (docker run --restart unless-stopped): on a crash loop of its
# workers the server exits with status 1 (bin/entrypoint). Docker marks the container unhealthy
# after three failed checks; an orchestrator, not Docker alone, restarts it for that.
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://localhost:8000/healthz', timeout=4).status != 200)"
ENTRYPOINT ["bin/entrypoint"]
