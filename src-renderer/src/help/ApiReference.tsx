// Ajuda › Referência da API: the service's own OpenAPI document (GET /v1/openapi.json, public) read as a
// reference page: routes grouped by subject, their parameters, bodies and answers as trees of fields.
import { useEffect, useMemo, useState, type MouseEvent } from 'react';
import { Banner } from '../components.tsx';
import { resolveBaseUrl } from '../session.ts';
import {
  children,
  fieldsOf,
  limits,
  operationsByTag,
  refName,
  resolve,
  typeLabel,
  variants,
  type OpenApiDoc,
  type Operation,
  type Schema,
} from './schema-text.ts';
import './reference.css';

const MAX_DEPTH = 6;

export function ApiReference() {
  const [doc, setDoc] = useState<OpenApiDoc | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [filter, setFilter] = useState('');
  const url = `${resolveBaseUrl()}/openapi.json`;

  useEffect(() => {
    let live = true;
    fetch(url)
      .then(async (res) => {
        if (!res.ok) throw new Error(`o serviço respondeu ${res.status}`);
        return (await res.json()) as OpenApiDoc;
      })
      .then(
        (d) => live && setDoc(d),
        (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
      );
    return () => {
      live = false;
    };
  }, [url]);

  const groups = useMemo(() => {
    if (doc === null) return [];
    const needle = filter.trim().toLowerCase();
    return operationsByTag(doc)
      .map((g) => ({
        ...g,
        operations: g.operations.filter(
          (o) =>
            needle === '' ||
            `${o.method} ${o.path} ${o.op.summary ?? ''} ${g.tag}`.toLowerCase().includes(needle) ||
            JSON.stringify(o.op).toLowerCase().includes(needle),
        ),
      }))
      .filter((g) => g.operations.length > 0);
  }, [doc, filter]);

  if (error !== null) {
    return (
      <div className="page">
        <h1>Referência da API</h1>
        <Banner kind="error">Não foi possível carregar a documentação da API: {error}</Banner>
      </div>
    );
  }
  if (doc === null) return <p className="loading">Carregando a documentação da API…</p>;

  return (
    <div className="page api-ref" data-testid="api-reference">
      <h1>Referência da API</h1>
      <p className="muted">
        {doc.info.title} · versão {doc.info.version}. Todas as rotas pedem o cabeçalho <code>X-API-Key</code>,
        exceto este documento. Os erros têm sempre o mesmo corpo (<code>error</code>, <code>message</code>,{' '}
        <code>details</code>). Documento OpenAPI 3.1:{' '}
        <a href={url} target="_blank" rel="noreferrer">
          openapi.json
        </a>
        .
      </p>
      <div className="api-ref-layout">
        <nav className="api-ref-toc" aria-label="Assuntos">
          <input
            type="search"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
            placeholder="Filtrar (caminho, resumo, campo)"
            aria-label="Filtrar rotas"
          />
          <ul>
            {groups.map((g) => (
              <li key={g.tag}>
                <a href={`#/ajuda`} onClick={(e) => jumpTo(e, g.tag)}>
                  {g.tag}
                </a>{' '}
                <span className="muted small">{g.operations.length}</span>
              </li>
            ))}
          </ul>
        </nav>
        <div className="api-ref-main">
          {groups.length === 0 ? <p className="muted">Nenhuma rota corresponde ao filtro.</p> : null}
          {groups.map((g) => (
            <section key={g.tag} id={anchorOf(g.tag)}>
              <h2>{g.tag}</h2>
              {g.operations.map((o) => (
                <OperationView
                  key={`${o.method} ${o.path}`}
                  doc={doc}
                  method={o.method}
                  path={o.path}
                  op={o.op}
                />
              ))}
            </section>
          ))}
        </div>
      </div>
    </div>
  );
}

/** Descriptions mark code with backticks, as Markdown does. */
function Inline(props: { text: string }) {
  const parts = props.text.split(/`([^`]+)`/);
  return <>{parts.map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part))}</>;
}

const anchorOf = (tag: string) => `api-${tag.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;

/** Hash routes own the address after `#`, so section links scroll instead of navigating. */
function jumpTo(e: MouseEvent, tag: string) {
  e.preventDefault();
  document.getElementById(anchorOf(tag))?.scrollIntoView({ behavior: 'smooth', block: 'start' });
}

function authText(op: Operation): string {
  const security = op.security ?? [{}];
  if (security.length === 0) return 'pública (sem chave)';
  if (security.length > 1) return 'cabeçalho X-API-Key ou parâmetro api_key (links abertos pelo navegador)';
  return 'cabeçalho X-API-Key';
}

const IN_WORDS: Record<string, string> = { path: 'caminho', query: 'consulta', header: 'cabeçalho' };

function OperationView(props: { doc: OpenApiDoc; method: string; path: string; op: Operation }) {
  const { doc, method, path, op } = props;
  const body = op.requestBody;
  return (
    <details className="api-op" data-testid={`op ${method.toUpperCase()} ${path}`}>
      <summary>
        <span className={`api-method api-method-${method}`}>{method.toUpperCase()}</span>
        <code className="api-path">{path}</code>
        <span className="api-summary">{op.summary}</span>
      </summary>
      <div className="api-op-body">
        {op.description !== undefined ? (
          <p>
            <Inline text={op.description} />
          </p>
        ) : null}
        <p className="small">
          <strong>Autenticação:</strong> {authText(op)}
        </p>
        {op.parameters !== undefined && op.parameters.length > 0 ? (
          <>
            <h4>Parâmetros</h4>
            <table className="grid api-params">
              <thead>
                <tr>
                  <th>Nome</th>
                  <th>Onde</th>
                  <th>Tipo</th>
                  <th>Descrição</th>
                </tr>
              </thead>
              <tbody>
                {op.parameters.map((p) => (
                  <tr key={`${p.in} ${p.name}`}>
                    <td>
                      <code>{p.name}</code>
                      {p.required === true ? <Required /> : null}
                    </td>
                    <td>{IN_WORDS[p.in] ?? p.in}</td>
                    <td>
                      {p.schema === undefined ? '' : typeLabel(doc, p.schema)}
                      {p.schema === undefined ? null : <Limits schema={p.schema} />}
                    </td>
                    <td>
                      <Inline text={p.description ?? ''} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        ) : null}
        {body !== undefined ? (
          <>
            <h4>
              Corpo da requisição{' '}
              {body.required === true ? <Required /> : <span className="muted">(opcional)</span>}
            </h4>
            {body.description !== undefined ? (
              <p>
                <Inline text={body.description} />
              </p>
            ) : null}
            {Object.entries(body.content).map(([type, content]) => (
              <div key={type} className="api-content">
                <div className="api-media">{type}</div>
                <Content doc={doc} type={type} schema={content.schema} />
              </div>
            ))}
          </>
        ) : null}
        <h4>Respostas</h4>
        {Object.entries(op.responses).map(([status, response]) => (
          <div key={status} className="api-response">
            <div>
              <span className={`api-status api-status-${status.charAt(0)}`}>{status}</span>{' '}
              <Inline text={response.description} />
            </div>
            {Object.entries(response.content ?? {}).map(([type, content]) => (
              <div key={type} className="api-content">
                <div className="api-media">{type}</div>
                {/* The error body is the same everywhere: shown closed so the success answers stand out. */}
                <Content
                  doc={doc}
                  type={type}
                  schema={content.schema}
                  depth={status.startsWith('2') ? 0 : 1}
                />
              </div>
            ))}
          </div>
        ))}
      </div>
    </details>
  );
}

function Required() {
  return (
    <span className="api-required" title="obrigatório">
      {' '}
      obrigatório
    </span>
  );
}

function Limits(props: { schema: Schema }) {
  const list = limits(props.schema);
  return list.length === 0 ? null : <span className="muted small"> · {list.join(' · ')}</span>;
}

function Content(props: { doc: OpenApiDoc; type: string; schema: Schema | undefined; depth?: number }) {
  if (!props.type.includes('json')) {
    return <p className="muted small">Arquivo ({props.type === 'text/plain' ? 'texto' : 'binário'}).</p>;
  }
  if (props.schema === undefined || Object.keys(props.schema).length === 0) {
    return <p className="muted small">JSON.</p>;
  }
  return <SchemaTree doc={props.doc} schema={props.schema} depth={props.depth ?? 0} />;
}

/** A schema as its fields (name, type, limits, required mark), nested objects and unions opening below. */
function SchemaTree(props: { doc: OpenApiDoc; schema: Schema; depth: number }) {
  const { doc, schema, depth } = props;
  const target = resolve(doc, schema);
  const fields = fieldsOf(doc, target);
  const name = refName(schema);
  if (depth > MAX_DEPTH) return <span className="muted">…</span>;
  if (fields !== null) {
    const list = (
      <ul className="api-fields">
        {fields.map((f) => (
          <FieldRow
            key={f.name}
            doc={doc}
            name={f.name}
            schema={f.schema}
            required={f.required}
            depth={depth}
          />
        ))}
      </ul>
    );
    if (name === null) return list;
    return (
      <details className="api-sub" open={depth === 0}>
        <summary>
          <code>{name}</code>
          {typeof target['description'] === 'string' ? (
            <span className="muted small">
              {' '}
              — <Inline text={target['description']} />
            </span>
          ) : null}
        </summary>
        {list}
      </details>
    );
  }
  const options = variants(target);
  if (options.length > 0) {
    return (
      <div className="api-union">
        <div className="muted small">
          {typeof target['description'] === 'string' ? <Inline text={`${target['description']} `} /> : null}
          Uma das formas:
        </div>
        {options.map((option, i) => (
          <SchemaTree key={i} doc={doc} schema={option} depth={depth} />
        ))}
      </div>
    );
  }
  const items = target['items'] as Schema | undefined;
  if (items !== undefined) {
    return (
      <div>
        <span className="muted small">Lista de:</span>
        <SchemaTree doc={doc} schema={items} depth={depth} />
      </div>
    );
  }
  return <code>{typeLabel(doc, schema)}</code>;
}

function FieldRow(props: {
  doc: OpenApiDoc;
  name: string;
  schema: Schema;
  required: boolean;
  depth: number;
}) {
  const { doc, name, schema, required, depth } = props;
  const target = resolve(doc, schema);
  const inner = children(doc, schema);
  const description = typeof target['description'] === 'string' ? target['description'] : undefined;
  const head = (
    <>
      <code className="api-field-name">{name}</code>
      {required ? <Required /> : null}
      <span className="api-type"> {typeLabel(doc, schema)}</span>
      <Limits schema={target} />
      {description !== undefined ? (
        <span className="api-desc">
          {' '}
          — <Inline text={description} />
        </span>
      ) : null}
    </>
  );
  if (inner.length === 0 || depth >= MAX_DEPTH) return <li>{head}</li>;
  return (
    <li>
      <details className="api-sub">
        <summary>{head}</summary>
        {inner.map((child, i) => (
          <SchemaTree key={i} doc={doc} schema={child} depth={depth + 1} />
        ))}
      </details>
    </li>
  );
}
