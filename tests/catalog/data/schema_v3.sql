-- GPU Cloud Advisor catalog schema. Version is stored in catalog_meta('schema_version') and must
-- equal catalog.store.SCHEMA_VERSION. Enum CHECK lists mirror catalog/models.py (a test checks).
-- Units are in column names; `as_of` values are ISO dates that may be partial (YYYY, YYYY-MM).
--
-- Version 2: no FOREIGN KEY clauses between catalog tables. DuckDB refuses to delete a parent and its
-- children in one transaction (duckdb/duckdb#13819) and runs an UPDATE of an indexed column as delete +
-- insert, which a referencing row refuses; so restores and edits of referenced rows failed. The store
-- checks every reference (catalog.models.REFERENCES) inside each write's transaction instead, before
-- COMMIT. A version-1 file is rebuilt to this schema on its first writable open (catalog.store).
-- Version 3: providers.parent_company (+ source URL, date) and the certification_scopes table (issue #18);
-- a version-2 file is rebuilt the same way.

CREATE TABLE IF NOT EXISTS catalog_meta (
    key   VARCHAR PRIMARY KEY,
    value VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS gpu_models (
    gpu_model    VARCHAR PRIMARY KEY,
    architecture VARCHAR,
    vendor       VARCHAR NOT NULL,
    row_version  INTEGER NOT NULL DEFAULT 1,
    updated_by   VARCHAR NOT NULL DEFAULT 'seed'
);

-- Names that sources and other catalogs use for a GPU model ("H100-SXM5", "H100 80GB HBM3").
CREATE TABLE IF NOT EXISTS gpu_aliases (
    alias        VARCHAR PRIMARY KEY,
    gpu_model    VARCHAR NOT NULL,  -- -> gpu_models
    form_factor  VARCHAR CHECK (form_factor IN ('SXM', 'PCIe', 'OAM')),
    row_version  INTEGER NOT NULL DEFAULT 1,
    updated_by   VARCHAR NOT NULL DEFAULT 'seed'
);

CREATE TABLE IF NOT EXISTS gpu_specs (
    gpu_spec_id                              VARCHAR PRIMARY KEY,
    gpu_model                                VARCHAR NOT NULL,  -- -> gpu_models
    form_factor                              VARCHAR NOT NULL CHECK (form_factor IN ('SXM', 'PCIe', 'OAM')),
    memory_gb                                DOUBLE NOT NULL CHECK (memory_gb > 0),
    memory_type                              VARCHAR NOT NULL
        CHECK (memory_type IN ('HBM3', 'HBM3e', 'HBM2e', 'HBM2', 'GDDR6', 'GDDR7')),
    memory_bandwidth_tbps                    DOUBLE CHECK (memory_bandwidth_tbps > 0),
    fp16_dense_tflops                        DOUBLE CHECK (fp16_dense_tflops > 0),
    bf16_dense_tflops                        DOUBLE CHECK (bf16_dense_tflops > 0),
    fp8_dense_tflops                         DOUBLE CHECK (fp8_dense_tflops > 0),
    tdp_watts                                DOUBLE CHECK (tdp_watts > 0),
    nvlink_bandwidth_gb_per_s_bidirectional  DOUBLE CHECK (nvlink_bandwidth_gb_per_s_bidirectional > 0),
    mig_max_instances                        INTEGER CHECK (mig_max_instances BETWEEN 0 AND 7),
    source_url                               VARCHAR NOT NULL,
    as_of                                    VARCHAR,
    verification_status                      VARCHAR NOT NULL
        CHECK (verification_status IN ('claimed', 'verified', 'benchmarked')),
    notes                                    VARCHAR,
    row_version                              INTEGER NOT NULL DEFAULT 1,
    updated_by                               VARCHAR NOT NULL DEFAULT 'seed'
);

CREATE TABLE IF NOT EXISTS providers (
    provider_id          VARCHAR PRIMARY KEY,
    name                 VARCHAR NOT NULL,
    hq_country           VARCHAR NOT NULL CHECK (length(hq_country) = 2),
    legal_seat_country   VARCHAR CHECK (length(legal_seat_country) = 2),
    parent_jurisdiction  VARCHAR NOT NULL CHECK (parent_jurisdiction IN ('EU', 'US', 'UK', 'other')),
    eu_data_residency    VARCHAR CHECK (eu_data_residency IN ('yes', 'partial')),
    eu_regions           VARCHAR,
    certifications       VARCHAR NOT NULL,  -- ';'-separated (a LIST column would block updates under FKs)
    uptime_sla_pct       DOUBLE CHECK (uptime_sla_pct BETWEEN 0 AND 100),
    performance_sla      VARCHAR NOT NULL CHECK (performance_sla IN ('yes', 'no', 'unknown')),
    support_model        VARCHAR NOT NULL
        CHECK (support_model IN ('self-serve', 'ticket', 'dedicated-engineer', 'unknown')),
    min_commitment       VARCHAR NOT NULL
        CHECK (min_commitment IN ('none', 'monthly', 'annual', 'multi-year', 'unknown')),
    burst_capacity       VARCHAR NOT NULL CHECK (burst_capacity IN ('yes', 'no', 'unknown')),
    source_url           VARCHAR NOT NULL,
    extra_source_urls    VARCHAR NOT NULL,  -- ';'-separated
    as_of                VARCHAR NOT NULL,
    as_of_date           DATE NOT NULL,
    verification_status  VARCHAR NOT NULL
        CHECK (verification_status IN ('claimed', 'verified', 'benchmarked')),
    notes                VARCHAR,
    row_version          INTEGER NOT NULL DEFAULT 1,
    updated_by           VARCHAR NOT NULL DEFAULT 'seed',
    -- Added in schema version 3: the ultimate parent as a current ownership source names it.
    parent_company             VARCHAR,
    parent_company_source_url  VARCHAR,
    parent_company_as_of       VARCHAR
);

-- Evidence for a provider's legal seat and certifications: one sourced row per (provider, field).
-- Added after schema version 1 shipped; an older catalog gets it (empty) on its first writable open.
CREATE TABLE IF NOT EXISTS provider_facts (
    fact_id              VARCHAR PRIMARY KEY,
    provider_id          VARCHAR NOT NULL,  -- -> providers
    field                VARCHAR NOT NULL CHECK (field IN ('legal_entity', 'legal_seat_country', 'legal_seat_address', 'certifications', 'certifications_scope')),
    value                VARCHAR NOT NULL,
    source_url           VARCHAR NOT NULL,
    as_of                VARCHAR NOT NULL,
    as_of_date           DATE NOT NULL,
    verification_status  VARCHAR NOT NULL
        CHECK (verification_status IN ('claimed', 'verified', 'benchmarked')),
    notes                VARCHAR,
    row_version          INTEGER NOT NULL DEFAULT 1,
    updated_by           VARCHAR NOT NULL DEFAULT 'seed',
    UNIQUE (provider_id, field)
);

CREATE TABLE IF NOT EXISTS offers (
    offer_id                           VARCHAR PRIMARY KEY,
    provider_id                        VARCHAR NOT NULL,  -- -> providers
    gpu_model                          VARCHAR NOT NULL,  -- -> gpu_models
    gpu_spec_id                        VARCHAR,           -- -> gpu_specs
    form_factor                        VARCHAR CHECK (form_factor IN ('SXM', 'PCIe', 'OAM')),
    gpus_per_node                      INTEGER CHECK (gpus_per_node BETWEEN 1 AND 1024),
    memory_gb                          DOUBLE CHECK (memory_gb > 0),
    memory_type                        VARCHAR
        CHECK (memory_type IN ('HBM3', 'HBM3e', 'HBM2e', 'HBM2', 'GDDR6', 'GDDR7')),
    intra_node                         VARCHAR CHECK (intra_node IN ('NVLink-NVSwitch', 'NVLink-bridge', 'PCIe')),
    inter_node                         VARCHAR
        CHECK (inter_node IN ('InfiniBand-NDR', 'InfiniBand-HDR', 'RoCEv2', 'Ethernet', 'none')),
    inter_node_bandwidth_gbps_per_gpu  DOUBLE CHECK (inter_node_bandwidth_gbps_per_gpu >= 0),
    inter_node_source_url              VARCHAR,
    inter_node_as_of                   VARCHAR,
    mig_supported                      BOOLEAN,
    region                             VARCHAR NOT NULL,
    datacenter_country                 VARCHAR CHECK (length(datacenter_country) = 2),
    source_url                         VARCHAR NOT NULL,
    as_of                              VARCHAR NOT NULL,
    as_of_date                         DATE NOT NULL,
    verification_status                VARCHAR NOT NULL
        CHECK (verification_status IN ('claimed', 'verified', 'benchmarked')),
    notes                              VARCHAR,
    row_version                        INTEGER NOT NULL DEFAULT 1,
    updated_by                         VARCHAR NOT NULL DEFAULT 'seed',
    instance_type                      VARCHAR,  -- provider's instance/SKU name (refreshes match on it)
    last_seen                          DATE      -- last day a catalog refresh saw the offer listed
);

CREATE TABLE IF NOT EXISTS prices (
    price_id             VARCHAR PRIMARY KEY,
    offer_id             VARCHAR NOT NULL,  -- -> offers
    price_type           VARCHAR NOT NULL CHECK (price_type IN ('on-demand', 'spot', 'reserved', 'quote')),
    term_months          INTEGER CHECK (term_months BETWEEN 1 AND 120),
    upfront_pct          DOUBLE CHECK (upfront_pct BETWEEN 0 AND 100),
    amount_per_gpu_hour  DOUBLE NOT NULL CHECK (amount_per_gpu_hour > 0 AND isfinite(amount_per_gpu_hour)),
    currency             VARCHAR NOT NULL CHECK (currency IN ('EUR', 'USD')),
    valid_from           DATE NOT NULL,
    valid_to             DATE,
    source_url           VARCHAR NOT NULL,
    retrieved_at         VARCHAR NOT NULL,
    method               VARCHAR NOT NULL CHECK (method IN ('page', 'api', 'quote', 'estimate')),
    verification_status  VARCHAR NOT NULL
        CHECK (verification_status IN ('claimed', 'verified', 'benchmarked')),
    notes                VARCHAR,
    is_private           BOOLEAN NOT NULL DEFAULT false,  -- negotiated quote: editors only
    expires_on           DATE,
    row_version          INTEGER NOT NULL DEFAULT 1,
    updated_by           VARCHAR NOT NULL DEFAULT 'seed',
    CHECK (NOT is_private OR expires_on IS NOT NULL),
    -- A commitment price must never pass as on-demand or spot.
    CHECK (price_type NOT IN ('on-demand', 'spot') OR (term_months IS NULL AND upfront_pct IS NULL)),
    CHECK (valid_to IS NULL OR valid_to >= valid_from),
    last_seen            DATE,     -- last day a refresh saw the same amount listed (no new history row)
    last_seen_source_url VARCHAR   -- ... and where
);

-- Region -> data-centre country per provider (editable; imports and the EU filter read it).
CREATE TABLE IF NOT EXISTS region_countries (
    region_key           VARCHAR PRIMARY KEY,  -- '<provider_id>:<region>'
    provider_id          VARCHAR NOT NULL,     -- -> providers
    region               VARCHAR NOT NULL,
    datacenter_country   VARCHAR NOT NULL CHECK (length(datacenter_country) = 2),
    source_url           VARCHAR NOT NULL,
    as_of                VARCHAR NOT NULL,
    as_of_date           DATE NOT NULL,
    verification_status  VARCHAR NOT NULL
        CHECK (verification_status IN ('claimed', 'verified', 'benchmarked')),
    notes                VARCHAR,
    row_version          INTEGER NOT NULL DEFAULT 1,
    updated_by           VARCHAR NOT NULL DEFAULT 'seed',
    UNIQUE (provider_id, region)
);

-- Audit trail: every write is one change set; every changed row appends one change_log entry with
-- its state before and after (JSON). Nothing is ever deleted from these two tables.
CREATE TABLE IF NOT EXISTS change_sets (
    change_set_id  BIGINT PRIMARY KEY,
    created_at     TIMESTAMPTZ NOT NULL,
    editor         VARCHAR NOT NULL,
    kind           VARCHAR NOT NULL CHECK (kind IN ('seed', 'edit', 'import', 'restore')),
    message        VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS change_log (
    change_set_id  BIGINT NOT NULL REFERENCES change_sets (change_set_id),
    seq            INTEGER NOT NULL,
    table_name     VARCHAR NOT NULL,
    row_key        VARCHAR NOT NULL,
    action         VARCHAR NOT NULL CHECK (action IN ('insert', 'update', 'delete')),
    before_json    VARCHAR,
    after_json     VARCHAR,
    PRIMARY KEY (change_set_id, seq)
);

-- Saved workshop scenarios: every input across the pages as one versioned JSON document.
CREATE TABLE IF NOT EXISTS scenarios (
    scenario_id       BIGINT PRIMARY KEY,
    name              VARCHAR NOT NULL,
    client            VARCHAR,
    author            VARCHAR,
    created_at        TIMESTAMPTZ NOT NULL,
    scenario_version  INTEGER NOT NULL,
    scenario_json     VARCHAR NOT NULL
);

-- Group weighting in a workshop: each participant's criterion weight points for a session code.
CREATE TABLE IF NOT EXISTS workshop_votes (
    session_code        VARCHAR NOT NULL,
    participant         VARCHAR NOT NULL,
    weight_points_json  VARCHAR NOT NULL,
    updated_at          TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (session_code, participant)
);

-- Schema version 3: what each held certification covers (services, countries, GPU compute), with its own
-- source. A certificate that does not cover the GPU service or the offer's country does not count for it.
CREATE TABLE IF NOT EXISTS certification_scopes (
    scope_id             VARCHAR PRIMARY KEY,  -- '<provider_id>:<certification>'
    provider_id          VARCHAR NOT NULL,  -- -> providers
    certification        VARCHAR NOT NULL,
    covers_gpu_compute   VARCHAR NOT NULL CHECK (covers_gpu_compute IN ('yes', 'no', 'not stated')),
    scope_services       VARCHAR NOT NULL,     -- as the source states it
    scope_countries      VARCHAR,              -- ';'-separated ISO codes; empty = the source names no country limit
    source_url           VARCHAR NOT NULL,
    as_of                VARCHAR NOT NULL,
    as_of_date           DATE NOT NULL,
    verification_status  VARCHAR NOT NULL
        CHECK (verification_status IN ('claimed', 'verified', 'benchmarked')),
    notes                VARCHAR,
    row_version          INTEGER NOT NULL DEFAULT 1,
    updated_by           VARCHAR NOT NULL DEFAULT 'seed',
    UNIQUE (provider_id, certification)
);

-- Workshop workspaces (one per client). The link that opens one carries a random token; only its SHA-256 is
-- stored, so the file never holds a working link. Scenarios and group sessions belong to one workspace.
CREATE TABLE IF NOT EXISTS workspaces (
    workspace_id  VARCHAR PRIMARY KEY,  -- sha256 hex of the link token
    client        VARCHAR NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    created_by    VARCHAR
);

CREATE TABLE IF NOT EXISTS group_sessions (
    session_code  VARCHAR PRIMARY KEY,
    workspace_id  VARCHAR NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL
);

-- Added with workspaces (idempotent, additive): older files get the columns on their first writable open.
-- Scenarios saved before workspaces existed keep a NULL workspace and are listed to nobody.
ALTER TABLE scenarios ADD COLUMN IF NOT EXISTS workspace_id VARCHAR;
-- The session that cast a vote (SHA-256 of a per-browser secret): another session cannot overwrite it.
ALTER TABLE workshop_votes ADD COLUMN IF NOT EXISTS voter_id VARCHAR;

-- Providers' quotes recorded in a client workspace (issue #29.6): private to the workspace, never catalog data.
-- One validated catalog.quotes.Quote per row as JSON (written and read only through catalog.storage.quotes).
CREATE TABLE IF NOT EXISTS workspace_quotes (
    quote_id      BIGINT PRIMARY KEY,
    workspace_id  VARCHAR NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL,
    created_by    VARCHAR,
    quote_json    VARCHAR NOT NULL
);

-- Failed password sign-ins (ui.auth, issue #32.8). The shared backend (PostgreSQL) counts them here, so every
-- replica of a cluster applies the same lockout; a DuckDB file serves one process, which counts in memory and
-- leaves this table empty. A key is the SHA-256 of the user name or client address (a password typed into the
-- name field never lands here); rows older than the lockout are deleted at the next attempt.
CREATE TABLE IF NOT EXISTS login_failures (
    attempt_id  VARCHAR NOT NULL,
    key_kind    VARCHAR NOT NULL CHECK (key_kind IN ('name', 'client')),
    key         VARCHAR NOT NULL,
    failed_at   TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (attempt_id, key_kind)
);
CREATE INDEX IF NOT EXISTS login_failures_by_key ON login_failures (key_kind, key, failed_at);
