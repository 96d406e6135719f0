"""Settings, read from the environment with embedded defaults (see README)."""

import sys
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from .observability.logs import logging_config
from .env import (
    env_bool,
    env_cache,
    env_database,
    env_float,
    env_int,
    env_json_object,
    env_list,
    env_rate,
    env_str,
    env_url,
)

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", True)
SECRET_KEY = env_str("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is false.")
    SECRET_KEY = "dev-only-insecure-key-change-me"  # noqa: S105 - only with DEBUG on
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

# daphne's app replaces `runserver` (Django's is WSGI: a reply's stream would arrive whole
# at its end) with one serving the ASGI app. Listed only for that command: it imports
# Twisted, ~29 MiB in every process, which the production servers (gunicorn's uvicorn
# workers, the Celery worker) never use.
RUNSERVER = sys.argv[1:2] == ["runserver"]

INSTALLED_APPS = [
    *(["daphne"] if RUNSERVER else []),  # first, so its runserver is the one found
    "chat.admin_config.AdminConfig",  # django.contrib.admin with the throttled sign-in
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "lifeassistant",
    "skills",
    "documents",
    "chat",
    "bench",  # measurement: the benchmark command; no product app imports it
]

MIDDLEWARE = [
    # The request's id, on its log lines and in its X-Request-ID response header.
    "lifeassistant.observability.logs.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # No database connection free in time: 503 with Retry-After (its process_exception).
    "lifeassistant.middleware.DatabaseBusyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # Django's, with API writes to a path missing its slash redirected by 308, not 301.
    "lifeassistant.middleware.CommonMiddleware",
    # Inside CommonMiddleware, so a path missing its slash is still redirected.
    "lifeassistant.middleware.ApiNotFoundMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "chat.middleware.LanguageMiddleware",
    # After the language is known (its 413 is a sentence in it); still before anything
    # reads the body: the CSRF check reads a form only in process_view, after every
    # middleware's request phase.
    "lifeassistant.middleware.RequestSizeLimitMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "lifeassistant.urls"
WSGI_APPLICATION = "lifeassistant.wsgi.application"
ASGI_APPLICATION = "lifeassistant.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": env_database("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
CACHES = {"default": env_cache("CACHE_URL", "locmem://")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

# Portuguese first (most users are Brazilian), English in full; Spanish covers the
# assistant's fixed texts. Each request's language: chat.middleware.LanguageMiddleware.
LANGUAGE_CODE = "pt-br"
LANGUAGES = [("pt-br", "Português (Brasil)"), ("en", "English"), ("es", "Español")]
# One catalog for the whole project (`make messages` rebuilds and compiles it).
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# Originals of the files people send: local files by default (never served), any Django
# storage backend by name, e.g. django-storages' S3 (docs/operations.md, "Files people send: storage").
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(BASE_DIR / "media")))
STORAGES = {
    "default": {
        "BACKEND": env_str("FILE_STORAGE_BACKEND", "django.core.files.storage.FileSystemStorage"),
        "OPTIONS": env_json_object("FILE_STORAGE_OPTIONS"),
    },
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

if not DEBUG:
    # WhiteNoise serves the web chat's static files (after collectstatic); with DEBUG
    # on, runserver serves them from the apps.
    MIDDLEWARE.insert(MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1, "whitenoise.middleware.WhiteNoiseMiddleware")
    # Production behind TLS; a proxy that terminates TLS sets X-Forwarded-Proto.
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 3600, minimum=0)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --- REST API -----------------------------------------------------------------
# The largest request body, in bytes: API requests over it get a JSON 413 (see
# lifeassistant/middleware.py and chat/api/parsers.py); Django's form parsing stops there too.
REQUEST_MAX_BYTES = env_int("REQUEST_MAX_BYTES", 1_048_576, minimum=1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_MAX_BYTES
# Files sent to POST /api/v1/conversations/{id}/files/ (chat/uploads.py): the one endpoint
# with a larger body, the pages a PDF and the characters any file may expand to.
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_BYTES", 10_485_760, minimum=1024)
UPLOAD_MAX_PAGES = env_int("UPLOAD_MAX_PAGES", 200, minimum=1)
UPLOAD_MAX_CHARS = env_int("UPLOAD_MAX_CHARS", 1_000_000, minimum=1000)
MESSAGE_RATE = env_rate("MESSAGE_RATE", "30/minute")
LOGIN_RATE = env_rate("LOGIN_RATE", "10/minute")  # sign-in attempts per client IP (API token, web, admin)
# Per claimed username from one client IP; then per username from any IP, counting only
# the clients that already failed at it (chat/throttling.py), so strangers cannot lock it.
# How long an API token from POST /api/v1/auth/token/ lasts (chat/api_tokens.py).
API_TOKEN_TTL_DAYS = env_int("API_TOKEN_TTL_DAYS", 90, minimum=1)
LOGIN_USERNAME_IP_RATE = env_rate("LOGIN_USERNAME_IP_RATE", "10/hour")
LOGIN_USERNAME_RATE = env_rate("LOGIN_USERNAME_RATE", "30/hour")
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "chat.api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # The API speaks JSON only, and documents only that, so generated clients send
    # JSON; a form or multipart body answers 415. (The browser sign-in at /login/ is
    # a plain Django form view, not part of the API.) The parser caps size and nesting
    # and refuses unstorable text (chat/api/parsers.py).
    "DEFAULT_PARSER_CLASSES": ["chat.api.parsers.JSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "DEFAULT_SCHEMA_CLASS": "lifeassistant.openapi.ApiAutoSchema",
    "DEFAULT_THROTTLE_RATES": {
        "messages": MESSAGE_RATE,
        "login": LOGIN_RATE,
        "login_username_ip": LOGIN_USERNAME_IP_RATE,
        "login_username": LOGIN_USERNAME_RATE,
    },
    "EXCEPTION_HANDLER": "chat.api.errors.exception_handler",
    # Throttles key anonymous clients by IP. Trust X-Forwarded-For only from the
    # number of proxies in front of the app (0: the socket address), or a client
    # could fake a new address on every sign-in attempt.
    "NUM_PROXIES": env_int("NUM_PROXIES", 0, minimum=0),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Life Assistant API",
    "DESCRIPTION": (
        "Conversations with a life-assistant AI whose behaviour adapts through skills. "
        "Text fields refuse NUL characters (U+0000): a 400 naming the field."
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Tags and operation ids start after /api/v1 ("conversations", "list_conversations").
    "SCHEMA_PATH_PREFIX": r"/api/v[0-9]+",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "chat.api.streaming.add_to_schema",
        "lifeassistant.openapi.name_path_parameters",
    ],
    "ENUM_NAME_OVERRIDES": {
        "MessageStatusEnum": "chat.models.Message.Status",
        "PendingActionStatusEnum": "chat.models.PendingAction.Status",
    },
}

# --- Celery ---------------------------------------------------------------------
_BROKER = env_url("CELERY_BROKER_URL", "", schemes={"redis", "rediss", "amqp", "amqps"})
# Unset broker: tasks run in-process, so the embedded default needs no worker. The
# in-memory transport keeps a stray dispatch from ever reaching a real broker.
CELERY_TASK_ALWAYS_EAGER = not _BROKER
CELERY_BROKER_URL = _BROKER or "memory://"
CELERY_TASK_EAGER_PROPAGATES = False
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A reply's one deadline (chat/replies.py): a run ends by then, whatever the pool. The
# threads pool does not enforce Celery's time limits, so the reply enforces its own (the
# stream checks it per chunk, the tool loop before each model call); the Celery limits are
# only a backstop for the prefork pool.
REPLY_TIME_LIMIT_SECONDS = env_int("REPLY_TIME_LIMIT_SECONDS", 150, minimum=10)
CELERY_TASK_SOFT_TIME_LIMIT = REPLY_TIME_LIMIT_SECONDS + 10
CELERY_TASK_TIME_LIMIT = REPLY_TIME_LIMIT_SECONDS + 20
CELERY_TASK_IGNORE_RESULT = True
# Celery keeps one result backend per thread unless told it is thread-safe; under ASGI every
# request runs on a thread of its own, so each queued reply built a backend (~0.1 ms of a
# publish's ~0.6 ms of CPU). Results are ignored, so the one backend is shared.
CELERY_RESULT_BACKEND_THREAD_SAFE = True
# Celery's Django fixup closes the database after every task unless told to reuse it; with
# PostgreSQL's connection pool that tore the whole pool down and opened two connections per
# reply. Each task takes a health-checked connection from the pool instead (chat.tasks).
CELERY_DB_REUSE_MAX = 1000
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A reply is acknowledged when it ends; a worker process killed mid-reply rejects it
# back to the queue at once (reject on worker lost). A whole worker that vanishes leaves
# it unacknowledged: Redis hands it out again after the visibility timeout, which must
# outlast the longest reply or a reply still running would be delivered twice.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_TASK_TIME_LIMIT + 60}

# --- Retention (LGPD) ------------------------------------------------------------
# The longest any conversation is kept after its last message, in days (0: as long as its
# owner wants). Users may choose fewer (PATCH /api/v1/me/ retention_days). Applied daily
# by the beat task below, or by `manage.py apply_retention`.
RETENTION_MAX_DAYS = env_int("RETENTION_MAX_DAYS", 0, minimum=0, maximum=36_500)
CELERY_BEAT_SCHEDULE = {
    "apply-retention": {"task": "chat.apply_retention", "schedule": 24 * 60 * 60},
}
# On the embedded defaults (no broker) replies run in this many threads of the web
# process, so sending a message answers at once; 0 runs them on the request thread. As
# many as the Procfile's worker runs: a reply waits on the model, not on the CPU.
EMBEDDED_REPLY_THREADS = env_int("EMBEDDED_REPLY_THREADS", 200, minimum=0, maximum=2000)
# A running reply saves its text so far at most this often (the event log holds it
# between), so a crash loses little and a row is written O(1) times per reply.
REPLY_CHECKPOINT_SECONDS = env_float("REPLY_CHECKPOINT_SECONDS", 5.0, minimum=0.5)
# The watchdog (chat/replies.py `sweep`) runs this often in every process that runs
# replies: it queues again a reply whose task was lost (a broker restarted without
# persistence) or whose worker died, and fails one past its deadline.
REPLY_SWEEP_SECONDS = env_float("REPLY_SWEEP_SECONDS", 10.0, minimum=0.0)  # 0: no watchdog
# A process running replies proves it is alive this often (in the shared cache); silent
# for four times as long, its running replies are taken over.
REPLY_HEARTBEAT_SECONDS = env_float("REPLY_HEARTBEAT_SECONDS", 5.0, minimum=0.1)

# --- Reply event log (streaming) -----------------------------------------------------
# Redis Streams when Redis is configured; unset, the Redis of CACHE_URL or the broker.
_REDIS_SCHEMES = {"redis", "rediss"}
EVENTS_REDIS_URL = env_url(
    "EVENTS_REDIS_URL",
    next((url for url in (env_str("CACHE_URL", ""), _BROKER) if url.split("://")[0] in _REDIS_SCHEMES), ""),
    schemes=_REDIS_SCHEMES,
)
if _BROKER and not EVENTS_REDIS_URL:
    raise ImproperlyConfigured(
        "Replies run in a Celery worker, so their event log must be shared: set EVENTS_REDIS_URL (redis://...)."
    )
EVENTS_MAX_LENGTH = env_int("EVENTS_MAX_LENGTH", 10_000, minimum=100)
EVENTS_TTL_SECONDS = env_int("EVENTS_TTL_SECONDS", 3600, minimum=1)
EVENTS_BATCH_SECONDS = env_float("EVENTS_BATCH_SECONDS", 0.075, minimum=0.0, maximum=5.0)
EVENTS_HEARTBEAT_SECONDS = env_float("EVENTS_HEARTBEAT_SECONDS", 15.0, minimum=0.1)

# --- LLM --------------------------------------------------------------------------
OFFLINE_MODEL = "offline/life-assistant"
LLM_MODEL = env_str("LLM_MODEL", OFFLINE_MODEL)
LLM_API_BASE = env_url("LLM_API_BASE", "", schemes={"http", "https"})
LLM_API_KEY = env_str("LLM_API_KEY", "")
LLM_TIMEOUT_SECONDS = env_float("LLM_TIMEOUT_SECONDS", 60.0, minimum=1.0)
LLM_MAX_RETRIES = env_int("LLM_MAX_RETRIES", 2, minimum=0, maximum=10)
LLM_RETRY_BACKOFF_SECONDS = env_float("LLM_RETRY_BACKOFF_SECONDS", 1.0, minimum=0.0)
# Streams from OpenAI-compatible endpoints are read by the lean reader (lifeassistant/openai_stream.py),
# not litellm's wrapper: ~1/100 of the CPU a chunk. Off: every call goes through litellm.
LLM_LEAN_STREAMING = env_bool("LLM_LEAN_STREAMING", True)
# Used when litellm does not know the model's context window (custom or retired models).
LLM_MAX_INPUT_TOKENS = env_int("LLM_MAX_INPUT_TOKENS", 128_000, minimum=1_000)
# The offline model streams its answer a word at a time, this far apart (0 = at once).
LLM_OFFLINE_TOKEN_DELAY_SECONDS = env_float("LLM_OFFLINE_TOKEN_DELAY_SECONDS", 0.03, minimum=0.0)

# --- Chat ---------------------------------------------------------------------------
MESSAGE_MAX_CHARS = env_int("MESSAGE_MAX_CHARS", 100_000, minimum=1)
# The replayed history is fitted to the model's window (chat/answering.py): the window
# less the reserved output and a safety margin for the token estimates. At most
# HISTORY_SCAN_MESSAGES of the newest messages are read, whatever the conversation's length.
LLM_MAX_OUTPUT_TOKENS = env_int("LLM_MAX_OUTPUT_TOKENS", 4096, minimum=256)
HISTORY_SAFETY_MARGIN = env_float("HISTORY_SAFETY_MARGIN", 0.1, minimum=0.0, maximum=0.5)
HISTORY_SCAN_MESSAGES = env_int("HISTORY_SCAN_MESSAGES", 200, minimum=2, maximum=5000)
TOOL_LOOP_MAX_ITERATIONS = env_int("TOOL_LOOP_MAX_ITERATIONS", 5, minimum=1, maximum=50)
TOOL_LOOP_TIME_BUDGET_SECONDS = env_float("TOOL_LOOP_TIME_BUDGET_SECONDS", 90.0, minimum=1.0)
SKILLS_ENABLED = env_bool("SKILLS_ENABLED", True)
SKILL_INERTIA_MESSAGES = env_int("SKILL_INERTIA_MESSAGES", 5, minimum=0)
# The learned second opinion beside the trigger patterns (skills/opinion.py): off, the patterns alone route.
SKILLS_LEARNED_OPINION = env_bool("SKILLS_LEARNED_OPINION", True)
SEMANTIC_ROUTER_ENABLED = env_bool("SEMANTIC_ROUTER_ENABLED", False)
SEMANTIC_ROUTER_TIMEOUT_SECONDS = env_float("SEMANTIC_ROUTER_TIMEOUT_SECONDS", 10.0, minimum=1.0)
# The intent analyzer's model call (large prose only: structured blocks are extracted without
# it) runs inside POST …/messages/: a short budget, no retries, then the message is kept whole.
ANALYZER_TIMEOUT_SECONDS = env_float("ANALYZER_TIMEOUT_SECONDS", 3.0, minimum=0.5)
# What the assistant knows about the user, in the system prompt (docs/specification.md: 500–800 tokens).
MEMORY_PROMPT_TOKENS = env_int("MEMORY_PROMPT_TOKENS", 600, minimum=0, maximum=4000)
# How many things the assistant may remember per user (the API and the add_knowledge tool
# refuse more): memory creation has no throttle, and the prompt ranks every item.
MEMORY_MAX_ITEMS = env_int("MEMORY_MAX_ITEMS", 500, minimum=1, maximum=100_000)
CONTEXT_LIGHT_TTL_SECONDS = env_int("CONTEXT_LIGHT_TTL_SECONDS", 1800, minimum=1)
PENDING_ACTION_TTL_SECONDS = env_int("PENDING_ACTION_TTL_SECONDS", 3600, minimum=60)
# An ended reply's HTML stays in the cache this long after it is rendered (0: every read
# renders). It shares the cache's Redis with the event logs: ~1.5 KB per reply kept.
REPLY_HTML_TTL_SECONDS = env_int("REPLY_HTML_TTL_SECONDS", 86_400, minimum=0)
SHELL_COMMANDS_ENABLED = env_bool("SHELL_COMMANDS_ENABLED", False)
SHELL_ALLOWLIST = env_list("SHELL_ALLOWLIST", ["date", "echo", "uptime"])
SHELL_TIMEOUT_SECONDS = env_float("SHELL_TIMEOUT_SECONDS", 5.0, minimum=0.1)
SHELL_OUTPUT_CAP_BYTES = env_int("SHELL_OUTPUT_CAP_BYTES", 16_384, minimum=64)
# Bounds on what a message derives (chat/limits.py): shell commands run per message, the
# stored intent, each replayed history message, and a stored reply, in characters.
SHELL_MAX_COMMANDS = env_int("SHELL_MAX_COMMANDS", 5, minimum=1)
INTENT_MAX_CHARS = env_int("INTENT_MAX_CHARS", 200_000, minimum=1_000)
HISTORY_MESSAGE_MAX_CHARS = env_int("HISTORY_MESSAGE_MAX_CHARS", 8_000, minimum=500)
REPLY_MAX_CHARS = env_int("REPLY_MAX_CHARS", 50_000, minimum=1_000)

# --- What an operator sees (lifeassistant/observability) ---------------------------------
# Off: no /metrics and no HTTP request metrics (the reply counters still count in memory).
METRICS_ENABLED = env_bool("METRICS_ENABLED", True)
if METRICS_ENABLED:
    # HTTP request metrics (django-prometheus): first and last, so they time the whole chain.
    MIDDLEWARE.insert(0, "django_prometheus.middleware.PrometheusBeforeMiddleware")
    MIDDLEWARE.append("django_prometheus.middleware.PrometheusAfterMiddleware")
# GET /metrics: with a token, only to "Authorization: Bearer <token>"; without, only to loopback.
METRICS_TOKEN = env_str("METRICS_TOKEN", "")
# The Celery worker's metrics (all its pool processes) on this port; 0 serves none.
WORKER_METRICS_PORT = env_int("WORKER_METRICS_PORT", 0, minimum=0, maximum=65535)
WORKER_METRICS_ADDRESS = env_str("WORKER_METRICS_ADDRESS", "")
# Written when the worker is ready to take tasks, removed when it stops ("" for none).
WORKER_READY_FILE = env_str("WORKER_READY_FILE", "/tmp/lifeassistant-worker.ready")  # noqa: S108
LOG_FORMAT = env_str("LOG_FORMAT", "plain")
if LOG_FORMAT not in ("plain", "json"):
    raise ImproperlyConfigured(f"LOG_FORMAT must be plain or json, got {LOG_FORMAT!r}.")
LOGGING = logging_config(LOG_FORMAT, env_str("LOG_LEVEL", "INFO"))
# The worker logs through LOGGING too (Celery would replace the root logger's handlers).
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
