"""Settings, read from the environment with embedded defaults (see README)."""

from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from .env import (
    env_bool,
    env_cache,
    env_database,
    env_float,
    env_int,
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

INSTALLED_APPS = [
    # First, so its `runserver` (ASGI, replies stream) replaces Django's (WSGI, buffered).
    "daphne",
    "chat.admin_config.AdminConfig",  # django.contrib.admin with the throttled sign-in
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "lifeassistant",
    "skills",
    "documents",
    "chat",
]

MIDDLEWARE = [
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

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

if not DEBUG:
    # WhiteNoise serves the web chat's static files (after collectstatic); with DEBUG
    # on, runserver serves them from the apps.
    MIDDLEWARE.insert(1, "whitenoise.middleware.WhiteNoiseMiddleware")
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
MESSAGE_RATE = env_rate("MESSAGE_RATE", "30/minute")
LOGIN_RATE = env_rate("LOGIN_RATE", "10/minute")  # sign-in attempts per client IP (API token, web, admin)
LOGIN_USERNAME_RATE = env_rate("LOGIN_USERNAME_RATE", "30/hour")  # per claimed username, from any IP
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
    "DEFAULT_THROTTLE_RATES": {"messages": MESSAGE_RATE, "login": LOGIN_RATE, "login_username": LOGIN_USERNAME_RATE},
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
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 120, minimum=1)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 150, minimum=1)
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
if CELERY_TASK_TIME_LIMIT <= CELERY_TASK_SOFT_TIME_LIMIT:
    raise ImproperlyConfigured("CELERY_TASK_TIME_LIMIT must be greater than CELERY_TASK_SOFT_TIME_LIMIT.")
# A reply is acknowledged when it ends; a worker process killed mid-reply rejects it
# back to the queue at once (reject on worker lost). A whole worker that vanishes leaves
# it unacknowledged: Redis hands it out again after the visibility timeout, which must
# outlast the longest reply or a reply still running would be delivered twice.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": CELERY_TASK_TIME_LIMIT + 60}
# On the embedded defaults (no broker) replies run in this many threads of the web
# process, so sending a message answers at once; 0 runs them on the request thread.
EMBEDDED_REPLY_THREADS = env_int("EMBEDDED_REPLY_THREADS", 4, minimum=0, maximum=64)

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
SEMANTIC_ROUTER_ENABLED = env_bool("SEMANTIC_ROUTER_ENABLED", False)
SEMANTIC_ROUTER_TIMEOUT_SECONDS = env_float("SEMANTIC_ROUTER_TIMEOUT_SECONDS", 10.0, minimum=1.0)
# The intent analyzer's model call (large prose only: structured blocks are extracted without
# it) runs inside POST …/messages/: a short budget, no retries, then the message is kept whole.
ANALYZER_TIMEOUT_SECONDS = env_float("ANALYZER_TIMEOUT_SECONDS", 3.0, minimum=0.5)
# What the assistant knows about the user, in the system prompt (seed 004: 500–800 tokens).
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

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"LiteLLM": {"level": "WARNING"}, "httpx": {"level": "WARNING"}},
}
