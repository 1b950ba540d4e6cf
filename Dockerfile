# A small image for the bot. Build: docker build -t interview-coach .
# Run:   docker run -d --name coach --env-file .env -v coach-data:/data interview-coach
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DATABASE_PATH=/data/coach.sqlite3
RUN useradd --create-home --uid 10001 coach && mkdir /data && chown coach /data
WORKDIR /app
COPY pyproject.toml README.md ./
# Only the bot: fake_telegram/ (the fake server and playground), bench/ and tests/ stay out.
COPY bot bot
COPY handlers handlers
COPY services services
COPY storage storage
COPY questions questions
COPY domain domain
RUN pip install --no-cache-dir .
USER coach
VOLUME ["/data"]
HEALTHCHECK --interval=5m --timeout=20s CMD ["python", "-m", "bot", "--check"]
CMD ["python", "-m", "bot"]
