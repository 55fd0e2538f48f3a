// The menu bar: brand, menu and company on one line down to 1024 px (issue 13 item 10). The store's
// management screens sit under one heading that opens a list, and the company name gives way first.
import { useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import { useApp } from './context.ts';
import { taxIdBr } from './format.ts';
import { href, useRoute } from './router.ts';
import './topbar.css';

interface MenuLink {
  path: string;
  label: string;
}
interface MenuGroup {
  label: string;
  links: readonly MenuLink[];
}

const MENU: readonly (MenuLink | MenuGroup)[] = [
  { path: '/caixa', label: 'Caixa' },
  { path: '/documentos', label: 'Documentos' },
  { path: '/nfe/nova', label: 'Nova NF-e' },
  { path: '/cte', label: 'CT-e' },
  { path: '/nfse', label: 'NFS-e' },
  { path: '/dce', label: 'DC-e' },
  { path: '/lotes', label: 'Lotes' },
  { path: '/recebidas', label: 'Recebidas' },
  {
    // What the shop sells: goods for the NF-e/NFC-e, services for the NFS-e.
    label: 'Catálogo',
    links: [
      { path: '/produtos', label: 'Produtos' },
      { path: '/servicos', label: 'Serviços' },
    ],
  },
  {
    // People, registers and figures: what the owner checks after hours, not while selling.
    label: 'Gestão',
    links: [
      { path: '/operadores', label: 'Operadores' },
      { path: '/caixas', label: 'Caixas' },
      { path: '/relatorios', label: 'Relatórios' },
    ],
  },
  { path: '/configuracoes', label: 'Configurações' },
  { path: '/ajuda', label: 'Ajuda' },
];

function isCurrent(path: string, route: { path: string; parts: string[] }): boolean {
  // "Nova NF-e" is its own entry; an NF-e being edited or a note shown belong to Documentos.
  if (path === '/nfe/nova') return route.path === path;
  const section = `/${route.parts[0] ?? 'caixa'}`;
  if (path === '/documentos') return section === path || (section === '/nfe' && route.path !== '/nfe/nova');
  return section === path;
}

export function TopBar() {
  const { company, companies, selectCompany, logout } = useApp();
  const route = useRoute();
  // At the cashier Tab stays in the sale; in the back office the menu is reached by Tab like any link.
  const tab = route.parts[0] === undefined || route.parts[0] === 'caixa' ? -1 : 0;
  const fullName = `${company.xNome} · CNPJ ${taxIdBr(company.cnpj)}`;
  return (
    <header className="topbar">
      <span className="brand">Balcão</span>
      <nav className="nav" aria-label="Menu">
        {MENU.map((item) =>
          'path' in item ? (
            <a
              key={item.path}
              href={href(item.path)}
              className={isCurrent(item.path, route) ? 'active' : ''}
              aria-current={isCurrent(item.path, route) ? 'page' : undefined}
              tabIndex={tab}
            >
              {item.label}
            </a>
          ) : (
            <MenuGroupButton key={item.label} group={item} route={route} tabIndex={tab} />
          ),
        )}
      </nav>
      <span className="company">
        {companies.length > 1 ? (
          <select
            aria-label="Empresa"
            title={fullName}
            value={company.id}
            onChange={(e) => selectCompany(e.target.value)}
            tabIndex={tab}
          >
            {companies.map((c) => (
              <option key={c.id} value={c.id}>
                {c.xFant ?? c.xNome} — {taxIdBr(c.cnpj)}
              </option>
            ))}
          </select>
        ) : (
          <span className="company-name" title={fullName}>
            {company.xFant ?? company.xNome} · {taxIdBr(company.cnpj)}
          </span>
        )}
        <button type="button" className="ghost small" onClick={logout} tabIndex={tab}>
          Sair
        </button>
      </span>
    </header>
  );
}

/**
 * A heading that opens its links below it (the disclosure pattern for site menus): click or Enter/Space
 * opens, ↓/↑ move between the links, Esc closes back to the heading; leaving it or choosing a link closes it.
 */
function MenuGroupButton(props: {
  group: MenuGroup;
  route: { path: string; parts: string[] };
  tabIndex: number;
}) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const listId = useId();
  const current = props.group.links.some((l) => isCurrent(l.path, props.route));

  useEffect(() => setOpen(false), [props.route.path]);
  useEffect(() => {
    if (!open) return;
    const away = (e: MouseEvent) => {
      if (!(e.target instanceof Node) || box.current?.contains(e.target) !== true) setOpen(false);
    };
    document.addEventListener('mousedown', away);
    return () => document.removeEventListener('mousedown', away);
  }, [open]);

  const links = () => [...(box.current?.querySelectorAll<HTMLAnchorElement>('.menu-list a') ?? [])];
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && open) {
      e.preventDefault();
      e.stopPropagation();
      setOpen(false);
      button.current?.focus();
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const all = links();
      const at = all.findIndex((a) => a === document.activeElement);
      const next =
        e.key === 'ArrowDown' ? (at + 1) % all.length : at <= 0 ? all.length - 1 : (at - 1) % all.length;
      if (!open) setOpen(true);
      // The list shows on the next render when it was closed.
      requestAnimationFrame(() => links()[next]?.focus());
    }
  };

  return (
    <div
      ref={box}
      className="menu-group"
      onKeyDown={onKeyDown}
      onBlur={(e) => {
        if (!(e.relatedTarget instanceof Node) || box.current?.contains(e.relatedTarget) !== true)
          setOpen(false);
      }}
    >
      <button
        ref={button}
        type="button"
        className={`menu-heading${current ? ' active' : ''}`}
        aria-expanded={open}
        aria-controls={listId}
        tabIndex={props.tabIndex}
        onClick={() => setOpen((o) => !o)}
      >
        {props.group.label}
        <span className="menu-caret" aria-hidden="true">
          ▾
        </span>
      </button>
      <ul id={listId} className="menu-list" hidden={!open}>
        {props.group.links.map((l) => (
          <li key={l.path}>
            <a
              href={href(l.path)}
              className={isCurrent(l.path, props.route) ? 'active' : ''}
              aria-current={isCurrent(l.path, props.route) ? 'page' : undefined}
              tabIndex={open ? 0 : -1}
              onClick={() => setOpen(false)}
            >
              {l.label}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}
