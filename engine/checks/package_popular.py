"""Popular package names of PyPI, npm, RubyGems and crates.io: what a typosquat imitates
(``package_names``), and which near neighbours are real packages themselves."""

from __future__ import annotations

__all__ = ["POPULAR"]

_PYPI = """
requests urllib3 boto3 botocore numpy pandas setuptools six python-dateutil pyyaml certifi idna
charset-normalizer typing-extensions packaging s3transfer cryptography pip wheel attrs jmespath
pydantic pydantic-core pyasn1 pyasn1-modules rsa google-api-core protobuf cffi pycparser jinja2
markupsafe click importlib-metadata zipp pytz platformdirs filelock virtualenv colorama tomli
awscli pyjwt wrapt grpcio googleapis-common-protos cachetools google-auth pluggy pytest
exceptiongroup iniconfig aiohttp yarl multidict frozenlist aiosignal async-timeout sqlalchemy
greenlet psutil tqdm scipy pillow matplotlib scikit-learn sklearn docutils pygments
requests-oauthlib oauthlib werkzeug flask django djangorestframework fastapi starlette uvicorn
gunicorn httpx httpcore anyio sniffio h11 beautifulsoup4 bs4 soupsieve lxml openpyxl et-xmlfile
decorator pyparsing kiwisolver cycler fonttools contourpy joblib threadpoolctl networkx sympy
mpmath torch torchvision torchaudio tensorflow keras transformers tokenizers huggingface-hub
safetensors datasets accelerate regex redis celery kombu billiard vine amqp psycopg2
psycopg2-binary psycopg pymysql mysqlclient pymongo elasticsearch paramiko bcrypt pynacl fabric
ansible ansible-core docker kubernetes websocket-client websockets python-dotenv marshmallow
alembic mako markdown black flake8 pylint mypy isort coverage tox nox sphinx ruff poetry stripe
sentry-sdk mlflow wandb xgboost lightgbm catboost statsmodels seaborn plotly dash streamlit
gradio openai anthropic langchain langchain-core tiktoken jupyter notebook jupyterlab ipython
ipykernel ipywidgets nltk spacy gensim opencv-python opencv-python-headless imageio
scikit-image pyarrow polars dask pyspark fsspec s3fs gcsfs google-cloud-storage
google-cloud-bigquery azure-storage-blob azure-identity azure-core snowflake-connector-python
dbt-core dbt-snowflake dbt-bigquery dbt-postgres apache-airflow prefect dagster selenium
playwright scrapy tenacity backoff retry retrying simplejson ujson orjson msgpack toml tomlkit
chardet termcolor rich typer tabulate prettytable arrow pendulum babel jsonschema pyrsistent
rpds-py referencing boto moto responses faker factory-boy hypothesis pytest-cov pytest-mock
pytest-xdist pytest-asyncio mock nose twine build cython numba llvmlite h5py tables sqlparse
asgiref channels graphene grpcio-tools thrift zope-interface twisted gevent eventlet pika
confluent-kafka kafka-python pysftp pexpect ptyprocess setuptools-scm wcwidth prompt-toolkit
traitlets tornado pyzmq nbformat nbconvert bleach webencodings tinycss2 defusedxml cssselect
xlrd xlsxwriter python-multipart email-validator passlib itsdangerous blinker flask-cors
flask-sqlalchemy flask-login flask-wtf django-cors-headers django-environ django-filter
django-storages django-extensions django-debug-toolbar whitenoise dj-database-url pyopenssl
service-identity uvloop watchdog pyinstaller pywin32 pyserial pyusb pycryptodome pycrypto
ecdsa jsonpointer jsonpatch shapely geopandas pyproj folium boto3-stubs types-requests
python-json-logger structlog loguru humanize inflect more-itertools toolz cloudpickle dill
pickle5 pyodbc cx-oracle oracledb snowflake-sqlalchemy sqlalchemy-utils redis-py hiredis
aioredis motor beanie peewee pony tortoise-orm asyncpg aiomysql aiofiles aiokafka
google-cloud-pubsub google-generativeai cohere sentence-transformers faiss-cpu chromadb
pinecone-client weaviate-client llama-index peft trl bitsandbytes optuna ray onnx
onnxruntime tensorboard keras-tuner einops timm lightning pytorch-lightning evaluate
"""
_NPM = """
react react-dom lodash express axios chalk commander debug moment uuid webpack typescript vue
next jquery underscore async request bluebird fs-extra glob minimist yargs semver dotenv
body-parser cors classnames prop-types redux react-redux react-router react-router-dom
styled-components eslint prettier jest mocha chai sinon babel-core rxjs tslib core-js inquirer
ora cheerio node-fetch socket.io socket.io-client mongoose mysql mysql2 pg sequelize knex
ioredis jsonwebtoken bcryptjs passport helmet morgan nodemon ts-node vite rollup esbuild
tailwindcss postcss autoprefixer sass less graphql apollo-server zod yup formik date-fns dayjs
luxon ramda immutable immer mobx nuxt svelte angular electron puppeteer cross-env rimraf
mkdirp concurrently husky lint-staged nanoid shelljs execa got superagent ws colors
cookie-parser multer nodemailer sharp jimp aws-sdk firebase firebase-admin twilio discord.js
winston pino bunyan handlebars ejs pug marked highlight.js three d3 chart.js vuex pinia
webpack-cli babel-loader css-loader style-loader file-loader html-webpack-plugin
webpack-dev-server react-scripts create-react-app vitest cypress nyc supertest nock
qs path-to-regexp object-assign mime mime-types cookie send serve-static finalize
on-finished http-errors depd statuses escape-html encodeurl etag fresh range-parser
iconv-lite safe-buffer readable-stream string_decoder inherits util-deprecate isarray
through2 event-stream pump once wrappy graceful-fs micromatch picomatch chokidar anymatch
braces fill-range to-regex-range is-number ansi-styles ansi-regex strip-ansi supports-color
has-flag escape-string-regexp color-convert color-name source-map source-map-support
lru-cache yallist signal-exit which isexe cross-spawn path-key shebang-command
node-gyp prebuild-install bindings nan node-addon-api esprima acorn terser uglify-js
browserslist caniuse-lite electron-to-chromium nodemon pm2 forever serve http-server
json5 js-yaml yaml ajv uri-js punycode tough-cookie form-data combined-stream asynckit
delayed-stream typeorm prisma mongodb redis-server bull bullmq kafkajs amqplib
storybook lerna nx turbo yarn pnpm npm npx next-auth swr react-query zustand jotai
"""
_GEMS = """
rails rake bundler rack rspec nokogiri devise puma sidekiq pg mysql2 sqlite3 activerecord
activesupport actionpack rubocop pry faraday httparty thor json minitest capybara
"""
_CRATES = """
serde serde_json tokio rand clap regex anyhow thiserror log env_logger reqwest hyper
futures chrono itertools lazy_static once_cell syn quote proc-macro2 bytes tracing
"""

POPULAR = frozenset((_PYPI + _NPM + _GEMS + _CRATES).split())
"""Names as their registries spell them (``-``, ``_`` and ``.`` are folded when compared)."""
