# bookworm: its postgresql-client-15 matches docker-compose's postgres:15 (`manage.py backup` refuses
# pg_dump / pg_restore of another major version than the server's).
FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
RUN apt-get update && apt-get install -y --no-install-recommends postgresql-client-15 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.txt .
# CUDA wheels for the gpu worker come from the PyTorch index when building on a GPU host;
# override TORCH_INDEX to pick another build.
ARG TORCH_INDEX=https://download.pytorch.org/whl/cu128
RUN pip install --no-cache-dir --index-url ${TORCH_INDEX} torch==2.13.0 && pip install --no-cache-dir -r requirements.txt
COPY . .
# Compiled translations are build output (not in git): .po -> .mo in pure Python.
RUN DJANGO_SETTINGS_MODULE=chlgbt_site.settings.local python manage.py compilemessages
RUN useradd -m app && mkdir -p /data && chown app /data
USER app
EXPOSE 8000
