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
    "django.contrib.admin",
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
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
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

LANGUAGE_CODE = "en-us"
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
MESSAGE_RATE = env_rate("MESSAGE_RATE", "30/minute")
LOGIN_RATE = env_rate("LOGIN_RATE", "10/minute")  # sign-in attempts per client IP (API token and web)
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_RATES": {"messages": MESSAGE_RATE, "login": LOGIN_RATE},
    "EXCEPTION_HANDLER": "chat.api.errors.exception_handler",
    # Throttles key anonymous clients by IP. Trust X-Forwarded-For only from the
    # number of proxies in front of the app (0: the socket address), or a client
    # could fake a new address on every sign-in attempt.
    "NUM_PROXIES": env_int("NUM_PROXIES", 0, minimum=0),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Life Assistant API",
    "DESCRIPTION": "Conversations with a life-assistant AI whose behaviour adapts through skills.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
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
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
if CELERY_TASK_TIME_LIMIT <= CELERY_TASK_SOFT_TIME_LIMIT:
    raise ImproperlyConfigured("CELERY_TASK_TIME_LIMIT must be greater than CELERY_TASK_SOFT_TIME_LIMIT.")

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

# --- Chat ---------------------------------------------------------------------------
MESSAGE_MAX_CHARS = env_int("MESSAGE_MAX_CHARS", 100_000, minimum=1)
HISTORY_MESSAGES = env_int("HISTORY_MESSAGES", 20, minimum=0)
TOOL_LOOP_MAX_ITERATIONS = env_int("TOOL_LOOP_MAX_ITERATIONS", 5, minimum=1, maximum=50)
TOOL_LOOP_TIME_BUDGET_SECONDS = env_float("TOOL_LOOP_TIME_BUDGET_SECONDS", 90.0, minimum=1.0)
SKILLS_ENABLED = env_bool("SKILLS_ENABLED", True)
SKILL_INERTIA_MESSAGES = env_int("SKILL_INERTIA_MESSAGES", 5, minimum=0)
SEMANTIC_ROUTER_ENABLED = env_bool("SEMANTIC_ROUTER_ENABLED", False)
SEMANTIC_ROUTER_TIMEOUT_SECONDS = env_float("SEMANTIC_ROUTER_TIMEOUT_SECONDS", 10.0, minimum=1.0)
CONTEXT_LIGHT_TTL_SECONDS = env_int("CONTEXT_LIGHT_TTL_SECONDS", 1800, minimum=1)
PENDING_ACTION_TTL_SECONDS = env_int("PENDING_ACTION_TTL_SECONDS", 3600, minimum=60)
SHELL_COMMANDS_ENABLED = env_bool("SHELL_COMMANDS_ENABLED", False)
SHELL_ALLOWLIST = env_list("SHELL_ALLOWLIST", ["date", "echo", "uptime"])
SHELL_TIMEOUT_SECONDS = env_float("SHELL_TIMEOUT_SECONDS", 5.0, minimum=0.1)
SHELL_OUTPUT_CAP_BYTES = env_int("SHELL_OUTPUT_CAP_BYTES", 16_384, minimum=64)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"LiteLLM": {"level": "WARNING"}, "httpx": {"level": "WARNING"}},
}
