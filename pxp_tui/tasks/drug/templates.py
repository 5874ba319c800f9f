"""Single-step retrosynthetic templates for the DRUG task (pure RDKit).

A small, hand-written library of common last-step disconnections, written as
retro SMARTS ``product>>reactants`` and applied with RDKit.  Used by the offline
(no-LLM) baseline machine to propose reactant sets, to explain them, and to
recognise which named reaction a chemist's reactant set corresponds to.

The templates are applied in RDKit's worker process for pictures (``drawer``): the target comes from a
dataset, and a large one keeps RDKit busy for seconds (holding Python's lock), or could crash it. This
module imports RDKit only there.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import TYPE_CHECKING

from pxp_tui.tasks.drug import drawer, limits
from pxp_tui.tasks.drug.chem import canonical, canonical_parts
from pxp_tui.tasks.isolated import IsolatedError, WorkerUnavailableError, inside

if TYPE_CHECKING:
    from rdkit import Chem
    from rdkit.Chem import rdChemReactions

#: seconds the templates may take over one target in RDKit's worker (then the baseline finds no disconnection)
APPLY_TIMEOUT = 60.0

__all__ = [
    "TEMPLATES",
    "TEMPLATES_BY_NAME",
    "Disconnection",
    "Template",
    "canonical_set",
    "disconnections",
    "explain",
    "identify",
]


@dataclass(frozen=True)
class Template:
    name: str  # short id, e.g. "amide"
    title: str  # human words, e.g. "amide coupling"
    retro_smarts: str  # product>>reactants
    rationale: str  # one or two sentences of chemistry used in explanations
    bond: str = "key bond"  # what the forward reaction makes, e.g. "C(=O)-N bond"
    roles: tuple[str, ...] = ()  # one label per reactant template, in SMARTS order


@dataclass(frozen=True)
class Disconnection:
    template: Template
    reactants: tuple[str, ...]  # canonical SMILES, sorted, no duplicates
    # (role, SMILES) pairs in template order; informative only, not compared.
    labelled: tuple[tuple[str, str], ...] = field(default=(), compare=False, repr=False)

    @property
    def smiles(self) -> str:
        return ".".join(self.reactants)


# --- SMARTS building blocks ---------------------------------------------------
# Nucleophilic amine N: not an amide/sulfonamide/imine/hydrazine/cyanamide N.
_AMINE = "N;+0;!$(N-[C,S,P]=[O,S,N]);!$(N-[N,O]);!$(N-C#N);!$(N=*)"
# sp3 carbon that an SN2 could build (CH or CH2, no second heteroatom on it).
_SN2C = "CX4;H1,H2;!$(C(~[N,O,n])~[N,O,S,F,Cl,Br,I,n])"
# Carbon that may carry an ether/ester O but is not itself a carbonyl/imine C.
_OC = "#6;!$([#6]=[O,S,N])"
# Aromatic carbon activated for SNAr by a ring N (ortho or para).
_HETC = "c;$(c:n),$(c:c:c:n)"
# Aromatic carbon activated for SNAr by an ortho/para nitro, nitrile, sulfonyl or acyl group.
_EWG = "$(C#N),$([N+](=O)[O-]),$(S(=O)=O),$(C=O)"
_ACTC = f"c;!$(c:n);$(c1ccc(-[{_EWG}])cc1),$(c1c(-[{_EWG}])cccc1)"

_AMIDE_N = "N;+0;!$(N(C=O)C=O);!$(N(C=O)S(=O)=O)"

_R = {  # rationales, reused by variants
    "alkyl": "An alkyl halide is attacked by the nucleophile in an SN2 reaction, usually "
    "with a base (K2CO3, NaH) to mop up the acid formed.",
    "amide": "A coupling reagent (a carbodiimide such as EDC, or HATU) activates the acid so "
    "that the amine can attack the carbonyl; this is the most used bond-forming step "
    "in medicinal chemistry.",
}

_ROWS: list[tuple[str, str, str, str, tuple[str, ...], str]] = [  # name, title, retro SMARTS, bond, roles, rationale
    (
        "boc_protection",
        "Boc protection",
        "[N;+0:1]-!@C(=O)-O-C(-[CH3])(-[CH3])-[CH3]>>[N:1].CC(C)(C)OC(=O)OC(=O)OC(C)(C)C",
        "N-Boc carbamate",
        ("amine", "Boc anhydride"),
        "Di-tert-butyl dicarbonate acylates the amine N to give the tert-butyl carbamate, "
        "a protecting group that survives base and is removed later with acid.",
    ),
    (
        "epoxide_opening",
        "epoxide opening by an amine",
        f"[{_AMINE}:1]-!@[CH2:2]-[C;X4:3]-[OX2H1:4]>>[N:1].[CH2:2]1[C:3][O:4]1",
        "N-CH2 bond of the beta-amino alcohol",
        ("amine", "epoxide"),
        "The amine opens the terminal epoxide at its less hindered CH2 carbon, leaving the "
        "secondary alcohol beta to nitrogen (the aryloxypropanolamine motif of beta-blockers).",
    ),
    (
        "urea",
        "urea formation from an isocyanate",
        "[N;+0;H1,H2:1]-!@[C:2](=[O:3])-!@[N;+0:4]>>[N:1]=[C:2]=[O:3].[N:4]",
        "N-C(=O)-N bond",
        ("isocyanate", "amine"),
        "Amines (and sulfonamide anions) add across the C=N bond of an isocyanate without a "
        "leaving group, giving the urea directly.",
    ),
    (
        "carbamate_chloroformate",
        "carbamate from a chloroformate",
        f"[N;+0:1]-!@[C:2](=[O:3])-!@[O:4]-[{_OC};!$(C(C)(C)C):5]>>[N:1].Cl[C:2](=[O:3])[O:4][#6:5]",
        "N-C(=O)O bond of the carbamate",
        ("amine", "chloroformate"),
        "The amine displaces chloride from the chloroformate (an alcohol activated with phosgene) "
        "in a nucleophilic acyl substitution.",
    ),
    (
        "carbamate_isocyanate",
        "carbamate from an isocyanate",
        f"[N;+0;H1,H2:1]-!@[C:2](=[O:3])-!@[O:4]-[{_OC}:5]>>[N:1]=[C:2]=[O:3].[O:4][#6:5]",
        "O-C(=O)N bond of the carbamate",
        ("isocyanate", "alcohol"),
        "The alcohol adds to the isocyanate, often with a tin or amine catalyst, giving the "
        "carbamate (urethane) with no by-product.",
    ),
    (
        "carbamate_carbamoyl_chloride",
        "carbamate from a carbamoyl chloride",
        f"[N;+0:1]-!@[C:2](=[O:3])-!@[O:4]-[{_OC}:5]>>[N:1][C:2](=[O:3])Cl.[O:4][#6:5]",
        "O-C(=O)N bond of the carbamate",
        ("carbamoyl chloride", "alcohol"),
        "A phenoxide or alkoxide displaces chloride from the N,N-disubstituted carbamoyl chloride; "
        "this is the usual way to make carbamates of secondary amines.",
    ),
    (
        "sulfonamide",
        "sulfonamide formation",
        "[#6:1]-[S:2](=[O:3])(=[O:4])-!@[N;+0:5]>>[#6:1][S:2](=[O:3])(=[O:4])Cl.[N:5]",
        "S(=O)2-N bond",
        ("sulfonyl chloride", "amine"),
        "The amine attacks the sulfonyl chloride and displaces chloride; a base such as pyridine "
        "or triethylamine takes up the HCl.",
    ),
    (
        "sulfonate_ester",
        "sulfonate ester formation",
        f"[#6:1]-[S:2](=[O:3])(=[O:4])-!@[O:5]-[{_OC}:6]>>[#6:1][S:2](=[O:3])(=[O:4])Cl.[O:5][#6:6]",
        "S(=O)2-O bond",
        ("sulfonyl chloride", "alcohol"),
        "The alcohol is sulfonylated by the sulfonyl chloride in the presence of a base.",
    ),
    (
        "acetylation_anhydride",
        "acetylation with acetic anhydride",
        "[CH3:4]-[C:1](=[O:2])-!@[N,O;+0;!$(N(C=O)C=O):3]>>CC(=O)O[C:1](=[O:2])[CH3:4].[*:3]",
        "acetyl C(=O)-N or C(=O)-O bond",
        ("anhydride", "amine or alcohol"),
        "Acetic anhydride is a cheap, mild acetylating agent; the amine or phenol attacks one carbonyl and acetate leaves.",
    ),
    (
        "amide",
        "amide coupling",
        f"[#6:4]-[C:1](=[O:2])-!@[{_AMIDE_N}:3]>>[#6:4][C:1](=[O:2])O.[N:3]",
        "C(=O)-N bond",
        ("carboxylic acid", "amine"),
        _R["amide"],
    ),
    (
        "amide_acyl_chloride",
        "amide formation from an acyl chloride",
        f"[#6:4]-[C:1](=[O:2])-!@[{_AMIDE_N}:3]>>[#6:4][C:1](=[O:2])Cl.[N:3]",
        "C(=O)-N bond",
        ("acyl chloride", "amine"),
        "The acyl chloride reacts with the amine under Schotten-Baumann conditions (aqueous base "
        "or triethylamine); no coupling reagent is needed.",
    ),
    (
        "ester",
        "esterification",
        f"[#6:4]-[C:1](=[O:2])-!@[O:3]-[{_OC}:5]>>[#6:4][C:1](=[O:2])O.[O:3][#6:5]",
        "C(=O)-O bond of the ester",
        ("carboxylic acid", "alcohol"),
        "Acid-catalysed (Fischer) esterification or a carbodiimide coupling joins the acid and the alcohol with loss of water.",
    ),
    (
        "suzuki",
        "Suzuki coupling",
        "[c:1]-!@[c:2]>>[c:1]Br.OB(O)[c:2]",
        "aryl-aryl bond",
        ("aryl bromide", "arylboronic acid"),
        "Palladium(0) inserts into the aryl bromide, transmetallates with the boronic acid under "
        "base and reductively eliminates the biaryl; it tolerates most functional groups.",
    ),
    (
        "snar",
        "SNAr amination of a heteroaryl chloride",
        f"[{_HETC}:1]-!@[{_AMINE}:2]>>Cl[c:1].[N:2]",
        "heteroaryl C-N bond",
        ("heteroaryl chloride", "amine"),
        "A ring nitrogen ortho or para to the chloride stabilises the Meisenheimer intermediate, "
        "so the amine displaces chloride on heating, without a metal catalyst.",
    ),
    (
        "snar_ether",
        "SNAr etherification of a heteroaryl chloride",
        f"[{_HETC}:1]-!@[O;+0:2]-[{_OC}:3]>>Cl[c:1].[O:2][#6:3]",
        "heteroaryl C-O bond",
        ("heteroaryl chloride", "alcohol"),
        "The alkoxide or phenoxide displaces chloride from the electron-poor heteroarene by addition-elimination.",
    ),
    (
        "snar_fluoroarene",
        "SNAr on an activated aryl fluoride",
        f"[{_ACTC}:1]-!@[N,O;+0;!$([N,O]-[C,S]=O):2]>>F[c:1].[*:2]",
        "aryl C-N or C-O bond",
        ("aryl fluoride", "amine or alcohol"),
        "An ortho or para electron-withdrawing group (nitro, nitrile, sulfonyl, carbonyl) makes "
        "the aryl fluoride a good SNAr electrophile; fluoride is the best leaving group here.",
    ),
    (
        "reductive_amination",
        "reductive amination",
        f"[{_AMINE}:1]-!@[{_SN2C};!$(C-[C,S]=O);!$(C-C#N):2]-[#6:3]>>[N:1].O=[C:2]-[#6:3]",
        "C-N bond",
        ("amine", "carbonyl compound"),
        "The amine and the aldehyde or ketone condense to an imine (iminium), which a mild hydride "
        "such as NaBH3CN or NaBH(OAc)3 reduces in the same pot; no over-alkylation.",
    ),
]
# Alkylations, each in a bromide and a chloride variant (bromide first).
for _x, _hal in (("Br", "bromide"), ("Cl", "chloride")):
    _s = "" if _x == "Br" else "_cl"
    _ROWS += [
        (
            f"n_alkylation{_s}",
            f"N-alkylation with an alkyl {_hal}",
            f"[{_AMINE}:1]-!@[{_SN2C}:2]>>[N:1].{_x}[C:2]",
            "N-C(sp3) bond",
            ("amine", f"alkyl {_hal}"),
            _R["alkyl"],
        ),
        (
            f"o_alkylation{_s}",
            f"Williamson ether synthesis with an alkyl {_hal}",
            f"[{_OC}:1]-!@[O;+0:2]-!@[{_SN2C}:3]>>[#6:1][O:2].{_x}[C:3]",
            "O-C(sp3) ether bond",
            ("alcohol/phenol", f"alkyl {_hal}"),
            "The alkoxide or phenoxide (from K2CO3, NaOH or NaH) displaces the halide in an SN2 "
            "reaction (Williamson ether synthesis).",
        ),
        (
            f"heteroaryl_n_alkylation{_s}",
            f"N-alkylation of an azole with an alkyl {_hal}",
            f"[n;+0:1]-!@[{_SN2C}:2]>>[nH:1].{_x}[C:2]",
            "ring N-C(sp3) bond",
            ("N-H heteroarene", f"alkyl {_hal}"),
            "The deprotonated ring N-H (imidazole, pyrazole, indole, pyridone) is alkylated by the "
            "halide under basic conditions.",
        ),
    ]
_ROWS += [
    (
        "methylation",
        "methylation with iodomethane",
        "[N,O;+0;!$(*=*);!$(*#*):1]-!@[CH3:2]>>[*:1].I[CH3:2]",
        "N-CH3 or O-CH3 bond",
        ("N-H or O-H compound", "iodomethane"),
        "Iodomethane methylates the alcohol, phenol, amine or amide N-H under basic conditions.",
    ),
    (
        "epoxide_opening_phenol",
        "epoxide opening by a phenol",
        "[c:1]-!@[O:2]-!@[CH2:3]-[C;X4:4]-[OX2H1:5]>>[c:1][O:2].[CH2:3]1[C:4][O:5]1",
        "ArO-CH2 bond of the beta-hydroxy ether",
        ("phenol", "epoxide"),
        "Under base the phenoxide opens the epoxide at the terminal carbon, giving a 1-aryloxy-2-propanol.",
    ),
    (
        "suzuki_bpin",
        "Suzuki coupling with a pinacol boronate",
        "[c:1]-!@[c:2]>>[c:1]Br.CC1(C)OB([c:2])OC1(C)C",
        "aryl-aryl bond",
        ("aryl bromide", "aryl pinacol boronate"),
        "A pinacol boronate ester is a bench-stable alternative to the boronic acid in the Pd-catalysed Suzuki coupling.",
    ),
    (
        "heck",
        "Heck reaction",
        "[c:1]-!@[CH:2]=[CH:3]-[C:4]=[O:5]>>[c:1]Br.[CH2:2]=[CH:3][C:4]=[O:5]",
        "aryl-vinyl bond",
        ("aryl bromide", "acrylate"),
        "Pd(0) couples the aryl bromide with the electron-poor alkene at its terminal carbon, giving the trans-cinnamate.",
    ),
    (
        "amide_from_methyl_ester",
        "aminolysis of a methyl ester",
        f"[#6:4]-[C:1](=[O:2])-!@[{_AMIDE_N}:3]>>[#6:4][C:1](=[O:2])OC.[N:3]",
        "C(=O)-N bond",
        ("methyl ester", "amine"),
        "Heating a methyl ester with a nucleophilic amine (ammonia, hydrazine, primary amines) "
        "converts it to the amide with loss of methanol.",
    ),
    # Functional-group interconversions and deprotections (one reactant), lowest priority.
    (
        "ester_hydrolysis",
        "hydrolysis of a methyl ester",
        "[#6:1]-[C:2](=[O:3])-[OX2H1:4]>>[#6:1][C:2](=[O:3])[O:4]C",
        "carboxylic acid",
        ("methyl ester",),
        "Saponification with LiOH or NaOH in aqueous THF/methanol unmasks the acid.",
    ),
    (
        "ester_hydrolysis_ethyl",
        "hydrolysis of an ethyl ester",
        "[#6:1]-[C:2](=[O:3])-[OX2H1:4]>>[#6:1][C:2](=[O:3])[O:4]CC",
        "carboxylic acid",
        ("ethyl ester",),
        "Saponification with LiOH or NaOH in aqueous THF/ethanol unmasks the acid.",
    ),
    (
        "nitro_reduction",
        "nitro reduction",
        "[c;!$(c:n):1]-[NX3;H2;+0:2]>>[c:1][N+:2](=O)[O-]",
        "aryl NH2 group",
        ("nitroarene",),
        "The aromatic nitro group is reduced to the aniline by catalytic hydrogenation (H2, Pd/C) "
        "or by a dissolving metal (Fe or SnCl2 with acid).",
    ),
    (
        "boc_deprotection",
        "Boc deprotection",
        f"[{_AMINE};!H0;!$(N-c:n):1]>>CC(C)(C)OC(=O)[N:1]",
        "free N-H amine",
        ("N-Boc amine",),
        "Trifluoroacetic acid or HCl cleaves the tert-butyl carbamate (losing isobutene and CO2) and releases the amine.",
    ),
    (
        "nitrile_reduction",
        "nitrile reduction",
        "[#6:3]-[CH2;!R:1]-[NX3;H2;+0:2]>>[#6:3][C:1]#[N:2]",
        "CH2-NH2 group",
        ("nitrile",),
        "Hydrogenation (Raney Ni, Pd/C) or LiAlH4 reduces the nitrile to the primary amine.",
    ),
    (
        "o_debenzylation",
        "O-debenzylation",
        "[OX2H1;$(O-[#6]);!$(O-[#6]=O):1]>>c1ccc(C[O:1])cc1",
        "free O-H group",
        ("benzyl ether",),
        "Hydrogenolysis over Pd/C removes the benzyl protecting group from the alcohol or phenol.",
    ),
    (
        "carbonyl_reduction",
        "carbonyl reduction",
        "[#6:3]-[CX4;H1,H2:1]-[OX2H1:2]>>[#6:3][C:1]=[O:2]",
        "C-OH group",
        ("aldehyde or ketone",),
        "Sodium borohydride (or another hydride) reduces the aldehyde or ketone to the alcohol.",
    ),
]

TEMPLATES: tuple[Template, ...] = tuple(
    Template(name=n, title=t, retro_smarts=s, rationale=r, bond=b, roles=roles) for n, t, s, b, roles, r in _ROWS
)
TEMPLATES_BY_NAME: dict[str, Template] = {t.name: t for t in TEMPLATES}


# --- machinery -------------------------------------------------------------------
def canonical_set(smiles: str) -> frozenset[str] | None:
    """Canonical SMILES of the '.'-separated parts; None if any part is invalid."""
    parts = canonical_parts(smiles) if isinstance(smiles, str) else None
    return frozenset(parts) if parts is not None else None


@cache
def _reaction(retro_smarts: str) -> rdChemReactions.ChemicalReaction:
    from rdkit.Chem import rdChemReactions

    rxn = rdChemReactions.ReactionFromSmarts(retro_smarts)
    rxn.Initialize()
    return rxn


def _finish(prod: Chem.Mol) -> str | None:
    """Sanitize one RunReactants product and return its canonical SMILES."""
    from rdkit import Chem

    from pxp_tui.tasks.drug.reading import canonical as own_canonical

    for atom in prod.GetAtoms():  # reaction-centre atoms: recompute their H counts
        if atom.HasProp("old_mapno") and not atom.GetIsAromatic():
            atom.SetNumExplicitHs(0)
            atom.SetNoImplicit(False)
    try:
        Chem.SanitizeMol(prod)
        return own_canonical(Chem.MolToSmiles(prod))  # re-parse: cleans stale stereo (RDKit's own SMILES: read here)
    except Exception:  # noqa: BLE001
        return None


def _apply(template: Template, mol: Chem.Mol, target_can: str) -> dict[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """Distinct outcomes of one template: sorted reactants -> (role, smiles) pairs."""
    found: dict[tuple[str, ...], tuple[tuple[str, str], ...]] = {}
    try:
        outcomes = _reaction(template.retro_smarts).RunReactants((mol,), 1000)
    except Exception:  # noqa: BLE001
        return found
    for prods in outcomes:
        finished = [_finish(p) for p in prods]
        smis = [s for s in finished if s is not None]
        if len(smis) < len(finished) or any("." in s for s in smis) or target_can in smis:
            continue
        key = tuple(sorted(set(smis)))
        if key not in found:
            roles = template.roles or tuple(f"reactant {i + 1}" for i in range(len(smis)))
            found[key] = tuple(zip(roles, smis, strict=False))
    return found


@lru_cache(maxsize=512)
def _disconnections(target_smiles: str, templates: tuple[Template, ...]) -> tuple[Disconnection, ...]:
    from rdkit import Chem

    target_can = canonical(target_smiles)
    if target_can is None or "." in target_can:
        return ()
    mol = Chem.MolFromSmiles(target_can)
    seen: set[tuple[str, ...]] = set()
    result = []
    for template in templates:
        found = _apply(template, mol, target_can)
        for key in sorted(found):
            if key not in seen:
                seen.add(key)
                result.append(Disconnection(template, key, found[key]))
    return tuple(result)


def disconnections(target_smiles: str, templates: Sequence[Template] = TEMPLATES) -> list[Disconnection]:
    """Every distinct single-step disconnection of the target, in template priority order
    (then by reactant SMILES); [] for invalid SMILES or when nothing applies. Never raises."""
    try:
        chosen = tuple(templates)
        return list(_disconnections(target_smiles, chosen) if inside() else _in_worker(target_smiles, chosen))
    except Exception:  # noqa: BLE001
        return []


@lru_cache(maxsize=512)
def _in_worker(target_smiles: str, chosen: tuple[Template, ...]) -> tuple[Disconnection, ...]:
    """:func:`_disconnections` in RDKit's worker, with the caller's own templates in its answer; none if the
    target is over a size limit, or RDKit crashed or ran past :data:`APPLY_TIMEOUT` on it."""
    if limits.problem(target_smiles.strip()):
        return ()
    try:
        found = drawer.DRAWER.call(f"{__name__}:_disconnections", target_smiles, chosen, timeout=APPLY_TIMEOUT)
    except WorkerUnavailableError:
        found = _disconnections(target_smiles, chosen)
    except IsolatedError:
        return ()
    same = {template: template for template in chosen}
    return tuple(Disconnection(same.get(d.template, d.template), d.reactants, d.labelled) for d in found)


def identify(target_smiles: str, reactants_smiles: str) -> Template | None:
    """The (highest-priority) template whose disconnection of the target gives exactly
    this reactant set, compared as canonical SMILES sets; None if there is none."""
    wanted = canonical_set(reactants_smiles)
    if wanted is None:
        return None
    for d in disconnections(target_smiles):
        if frozenset(d.reactants) == wanted:
            return d.template
    return None


def explain(d: Disconnection, target_smiles: str) -> str:
    """Two or three sentences naming the reaction, the bond made, the reactants, and why."""
    t = d.template
    labelled = d.labelled
    if not labelled:  # built by hand: recover the roles by re-running the template
        for cand in disconnections(target_smiles, (t,)):
            if cand.reactants == d.reactants:
                labelled = cand.labelled
        labelled = labelled or tuple(("reactant", s) for s in d.reactants)
    parts = [f"the {role} {smi}" for role, smi in labelled] or ["no reactants"]
    joined = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    verb = "formed" if len(parts) > 1 else "obtained"
    title = t.title[:1].upper() + t.title[1:]
    return f"{title}: the {t.bond} of the target is {verb} from {joined}. {t.rationale}"
