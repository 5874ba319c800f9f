#!/usr/bin/env python3
"""Generate the bundled RAD demo set: synthetic chest-radiograph phantoms.

Every image is a cartoon of a frontal (PA) chest radiograph drawn from
geometric primitives (body outline, spine, mediastinum, lungs with vessel
markings, ribs, clavicles, diaphragm domes, heart) with one finding painted
in: Atelectasis, Pneumonia, Pleural Effusion, Cardiomegaly or Pneumothorax.
Nothing here comes from a patient; every image carries a burnt-in
"SYNTHETIC" label and every report starts with "Synthetic phantom.".

Radiological convention: the patient's right is on the image's left (the
"R" marker in the top-left corner), so "right" in a report means image-left.

Output (default: ``pxp_tui/assets/demo`` next to this script's repository)::

    rad.csv                  key,label,split,image,report
    rad/phantom_01.png ...   40 grayscale 256x256 PNGs

The generator is deterministic: a fixed master seed, one derived seed per
image, no timestamps in the PNGs, so running it twice gives byte-identical
files (for the same numpy/Pillow versions).

Usage: python scripts/make_rad_phantoms.py [--out DIR]
"""

from __future__ import annotations

import argparse
import csv
import io
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

SEED = 20250607
SIZE = 256  # output side, pixels
SS = 2  # supersampling factor for drawing
W = SIZE * SS  # working canvas side, pixels
LABELS = ("Atelectasis", "Pneumonia", "Pleural Effusion", "Cardiomegaly", "Pneumothorax")
PER_CLASS = 8
SPLITS = ("train",) * 4 + ("val",) * 2 + ("test",) * 2  # per class, by index within the class
THORAX_CM = 30.0  # nominal internal thoracic width, used only to quote sizes in cm
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "pxp_tui" / "assets" / "demo"

# ----------------------------------------------------------------------------------------------
# drawing helpers


class Canvas:
    """Maps normalised anatomical coordinates (0..1, y down) to the working canvas.

    A small per-image rotation, scale and shift (patient positioning) is applied
    to everything drawn, so the same anatomy lands in slightly different places.
    """

    def __init__(self, rot_deg: float, scale: float, tx: float, ty: float) -> None:
        a = math.radians(rot_deg)
        self.c, self.s, self.sc, self.tx, self.ty = math.cos(a), math.sin(a), scale, tx, ty

    def fwd(self, pts) -> list[tuple[float, float]]:
        a = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
        x, y = a[:, 0] - 0.5, a[:, 1] - 0.5
        gx = (x * self.c - y * self.s) * self.sc + 0.5 + self.tx
        gy = (x * self.s + y * self.c) * self.sc + 0.5 + self.ty
        return [(float(u * W), float(v * W)) for u, v in zip(gx, gy, strict=True)]

    def grid(self) -> tuple[np.ndarray, np.ndarray]:
        """Anatomical coordinates of every working-canvas pixel centre."""
        v = (np.arange(W, dtype=np.float64) + 0.5) / W
        px, py = np.meshgrid(v, v)
        x = (px - 0.5 - self.tx) / self.sc
        y = (py - 0.5 - self.ty) / self.sc
        return x * self.c + y * self.s + 0.5, -x * self.s + y * self.c + 0.5

    def px(self, length: float) -> int:
        return max(1, round(length * W * self.sc))

    @staticmethod
    def blank() -> Image.Image:
        return Image.new("L", (W, W), 0)

    def poly(self, pts, img: Image.Image | None = None, fill: int = 255) -> Image.Image:
        img = img if img is not None else self.blank()
        ImageDraw.Draw(img).polygon(self.fwd(pts), fill=fill)
        return img

    def line(self, pts, width: float, img: Image.Image | None = None, fill: int = 255) -> Image.Image:
        img = img if img is not None else self.blank()
        ImageDraw.Draw(img).line(self.fwd(pts), fill=fill, width=self.px(width), joint="curve")
        return img


def arr(img: Image.Image, blur: float = 0.0) -> np.ndarray:
    """An 'L' layer as float32 in 0..1, optionally Gaussian-blurred (radius in canvas units)."""
    if blur > 0:
        img = img.filter(ImageFilter.GaussianBlur(blur * W))
    return np.asarray(img, dtype=np.float32) / 255.0


def to_img(a: np.ndarray) -> Image.Image:
    return Image.fromarray(np.clip(np.round(a * 255.0), 0, 255).astype(np.uint8), "L")


def ellipse(c, rx: float, ry: float, ang: float = 0.0, n: int = 72) -> list[tuple[float, float]]:
    t = np.linspace(0.0, 2.0 * np.pi, n, endpoint=False)
    ca, sa = math.cos(ang), math.sin(ang)
    x, y = rx * np.cos(t), ry * np.sin(t)
    return list(zip(c[0] + x * ca - y * sa, c[1] + x * sa + y * ca, strict=True))


# ----------------------------------------------------------------------------------------------
# anatomy


@dataclass
class Anatomy:
    cx: float  # midline (spine)
    tw: float  # half internal thoracic width at the domes
    apex: float  # lung apex height
    dome: dict[int, float]  # dome peak per side (-1 patient right = image left, +1 patient left)
    cp_drop: float  # costophrenic recess depth below the dome peak
    mw: float  # medial lung border, distance from midline
    hilum: float  # hilum height
    ctr: float  # cardiothoracic ratio
    heart_h: float  # heart height
    shift: float = 0.0  # mediastinal shift (image x; + = toward image right)

    def x(self, side: int, d: float) -> float:
        return self.cx + side * d

    def ycp(self, side: int) -> float:
        return self.dome[side] + self.cp_drop

    def lung_outline(self, side: int, n: int = 48) -> tuple[list, list, list]:
        """(lateral+apical curve, dome curve, medial border) of one lung, in order around it."""
        s, m = side, self.shift
        med = self.mw + (m * s if m * s < 0 else 0.0)  # lung narrows on the side the mediastinum moves to
        med_x = lambda d: self.cx + m + s * d  # noqa: E731 - medial border follows the mediastinum
        wa = med + 0.035
        ycp = self.ycp(s)
        lat = []
        for t in np.linspace(0.0, 1.0, n):
            y = self.apex + t * (ycp - self.apex)
            w = wa + (self.tw - wa) * (1.0 - (1.0 - t) ** 2.2) ** 0.5
            lat.append((self.cx + s * w, y))
        peak, ymed = self.dome[s], self.dome[s] + 0.03
        dome = []
        for u in np.linspace(0.0, 1.0, n)[1:]:
            d = self.tw - u * (self.tw - med)
            if u < 0.55:
                y = peak + (ycp - peak) * ((0.55 - u) / 0.55) ** 2
            else:
                y = peak + (ymed - peak) * ((u - 0.55) / 0.45) ** 2
            x = self.cx + s * d if u < 0.999 else med_x(med)
            dome.append((x, y))
        medial = [(med_x(med), ymed - 0.01), (med_x(med), self.apex + 0.05), (med_x(med * 0.9 + 0.005), self.apex + 0.03)]
        return lat, dome, medial

    def heart_outline(self) -> list[tuple[float, float]]:
        width = self.ctr * 2.0 * self.tw
        rr, ll = 0.36 * width, 0.64 * width
        base = 0.5 * (self.dome[-1] + self.dome[1]) + 0.035
        yc = base - 0.36 * self.heart_h
        up, dn = 0.82 * self.heart_h, 0.36 * self.heart_h + 0.06
        cx = self.cx + self.shift
        pts = []
        for t in np.linspace(0.0, 2.0 * np.pi, 120, endpoint=False):
            c, s = math.cos(t), math.sin(t)
            rx = ll if c > 0 else rr
            if s < 0:  # upper half narrows toward the great vessels
                rx *= 1.0 - (0.42 if c > 0 else 0.22) * abs(s) ** 2.2
            ry = dn if s > 0 else up
            pts.append((cx + rx * math.copysign(abs(c) ** 0.8, c), yc + ry * math.copysign(abs(s) ** 0.9, s)))
        return pts


def random_anatomy(rng: np.random.Generator) -> Anatomy:
    dome_r = rng.uniform(0.665, 0.705)
    return Anatomy(
        cx=0.5 + rng.uniform(-0.012, 0.012),
        tw=rng.uniform(0.335, 0.365),
        apex=rng.uniform(0.125, 0.155),
        dome={-1: dome_r, 1: dome_r + rng.uniform(0.012, 0.03)},
        cp_drop=rng.uniform(0.05, 0.07),
        mw=rng.uniform(0.05, 0.058),
        hilum=rng.uniform(0.385, 0.42),
        ctr=rng.uniform(0.40, 0.465),
        heart_h=rng.uniform(0.20, 0.235),
    )


# ----------------------------------------------------------------------------------------------
# findings


@dataclass
class Case:
    label: str
    side: int  # -1 patient right (image left), +1 patient left (image right); 0 for cardiomegaly
    rng: np.random.Generator
    facts: dict = field(default_factory=dict)


def side_word(side: int) -> str:
    return "right" if side < 0 else "left"


def cm(length: float, an: Anatomy) -> float:
    return length / (2.0 * an.tw) * THORAX_CM


def vessel_tree(cv: Canvas, rng: np.random.Generator, an: Anatomy, side: int, img: Image.Image) -> None:
    """Branching pulmonary vessels fanning out from the hilum."""
    draw = ImageDraw.Draw(img)
    hx, hy = an.x(side, an.mw + 0.045) + an.shift, an.hilum

    def branch(x, y, ang, length, width, depth):
        dx, dy = side * math.cos(ang), math.sin(ang)
        x2, y2 = x + dx * length, y + dy * length
        fill = int(255 * (0.45 + 0.55 * min(1.0, width / 0.011)))
        draw.line(cv.fwd([(x, y), (x2, y2)]), fill=fill, width=cv.px(width))
        if depth == 0:
            return
        for sign in (-1.0, 1.0):
            turn = sign * math.radians(rng.uniform(14, 34))
            branch(x2, y2, ang + turn, length * rng.uniform(0.62, 0.8), width * 0.68, depth - 1)

    for base in (-70.0, -35.0, -5.0, 30.0, 62.0, 85.0):
        ang = math.radians(base + rng.uniform(-8, 8))
        length = rng.uniform(0.07, 0.095) * (1.15 if base > 20 else 1.0)
        branch(hx, hy, ang, length, rng.uniform(0.009, 0.012), 4)


def draw_case(case: Case) -> np.ndarray:
    """Render one phantom; returns the 256x256 image as float 0..255 (before noise/label)."""
    rng = case.rng
    an = random_anatomy(rng)
    cv = Canvas(rng.uniform(-1.5, 1.5), rng.uniform(0.975, 1.02), rng.uniform(-0.01, 0.01), rng.uniform(-0.01, 0.01))
    ax, ay = cv.grid()
    f = case.facts
    lab, side = case.label, case.side

    # --- finding parameters that change the anatomy itself ----------------------------------
    if lab == "Cardiomegaly":
        an.ctr = rng.uniform(0.56, 0.68)
        an.heart_h *= 1.0 + (an.ctr - 0.45) * 0.7
        f["ctr"] = an.ctr
    else:
        f["ctr"] = an.ctr
    if lab == "Atelectasis":
        raise_by = rng.uniform(0.055, 0.085)
        an.dome[side] -= raise_by
        an.shift = side * rng.uniform(0.006, 0.02)
        f["raise_cm"] = cm(raise_by, an)
        f["shift"] = abs(an.shift) >= 0.012

    # --- body, spine, mediastinum ---------------------------------------------------------------
    cx = an.cx
    body_pts = []
    for sgn in (-1, 1):
        pts = [(0.075, -0.05), (0.085, 0.05), (0.28, 0.075), (0.43, 0.12), (0.47, 0.22), (0.455, 0.6), (0.445, 1.06)]
        half = [(cx + sgn * d, y) for d, y in pts]
        body_pts += half if sgn < 0 else half[::-1]
    body_w = np.clip(1.0 - 0.3 * (np.abs(ax - cx) / 0.47) ** 4, 0.0, 1.0)
    density = 0.70 * arr(cv.poly(body_pts), 0.012) * body_w
    liver = [(cx - 0.45, an.dome[-1] + 0.02), (cx, an.dome[-1] + 0.05), (cx, 1.1), (cx - 0.45, 1.1)]
    density += 0.04 * arr(cv.poly(liver), 0.03)

    # lungs and cut-outs (heart, aortic knob)
    lungs = {}
    for s in (-1, 1):
        lat, dome, medial = an.lung_outline(s)
        lungs[s] = arr(cv.poly(lat + dome + medial))
    heart_img = cv.poly(an.heart_outline())
    knob = ellipse((cx + an.shift + 0.055, an.apex + 0.19), 0.038, 0.03)
    cv.poly(knob, heart_img)
    heart = arr(heart_img)
    eff = {s: lungs[s] * (1.0 - heart) for s in (-1, 1)}  # visible (aerated) lung per side

    # --- findings that change the aerated lung ------------------------------------------------------
    collapsed = None
    if lab == "Pneumothorax":
        kx = rng.uniform(0.52, 0.74)
        ky = min(0.92, kx + rng.uniform(0.1, 0.2))
        hx, hy = an.x(side, an.mw + 0.03) + an.shift, an.hilum
        lat, dome, medial = an.lung_outline(side)

        def squash(p):
            x, y = p
            yy = hy + (y - hy) * (ky if y < hy else 0.97)
            return (hx + (x - hx) * kx, yy)

        inner_lat = [squash(p) for p in lat]
        inner = inner_lat + [squash(p) for p in dome] + medial
        collapsed = arr(cv.poly(inner)) * eff[side]
        rim = np.clip(eff[side] - collapsed, 0.0, 1.0)
        pleural = arr(cv.line(inner_lat[: int(len(inner_lat) * 0.97)], 0.0045), 0.0015) * lungs[side]
        gap = (1.0 - kx) * (an.tw - (an.mw + 0.03))
        f["gap_cm"] = cm(gap, an)
        f["size"] = "large" if round(f["gap_cm"]) >= 4 else "moderate-sized"

    # pleural fluid (drawn below, but it hides the lung markings it covers)
    fluid = np.zeros_like(ax, dtype=np.float32)
    if lab == "Pleural Effusion":
        frac = rng.uniform(0.22, 0.45)
        ycp = an.ycp(side)
        level = ycp - frac * (ycp - an.apex)
        men = rng.uniform(0.07, 0.1)
        d0 = an.ctr * 2.0 * an.tw * (0.64 if side > 0 else 0.36)  # heart border on that side
        dist = np.clip((side * (ax - cx) - d0) / (an.tw - d0), 0.0, 1.2)
        top = level - men * dist**1.8 - 0.06 * np.clip((dist - 0.8) / 0.2, 0.0, 1.0) ** 2  # fluid tracks up the wall
        ramp = np.clip((ay - top) / 0.045, 0.0, 1.0)
        fluid = arr(to_img(eff[side] * (top < ay) * (0.3 + 0.7 * ramp**0.7)), 0.006)
        f["pct"] = pct = round(frac * 20) * 5
        f["size"] = "small" if pct < 30 else ("moderate" if pct <= 40 else "large")

    # lung parenchyma: lucency + vessel markings + mottled texture
    lung_all = eff[-1] + eff[1]
    lung_soft = arr(to_img(np.clip(lung_all, 0, 1)), 0.006)
    density -= 0.47 * lung_soft
    vessels_img = cv.blank()
    for s in (-1, 1):
        vessel_tree(cv, rng, an, s, vessels_img)
    vessels = arr(vessels_img, 0.004)
    marks_mask = lung_soft * (1.0 - np.clip(fluid * 1.3, 0, 1))
    if collapsed is not None:
        marks_mask = np.clip(marks_mask - arr(to_img(rim), 0.003), 0.0, 1.0)
    fade = np.zeros_like(density)
    for s in (-1, 1):
        hx, hy = an.x(s, an.mw + 0.04) + an.shift, an.hilum
        fade = np.maximum(fade, np.exp(-np.hypot(ax - hx, ay - hy) / 0.2))
    hil = np.zeros_like(density)
    for s in (-1, 1):
        hil += arr(cv.poly(ellipse((an.x(s, an.mw + 0.03) + an.shift, an.hilum + 0.015), 0.035, 0.06)), 0.02)
    density += (0.17 * vessels * (0.35 + 0.65 * fade) + 0.10 * hil) * marks_mask
    coarse = Image.fromarray(rng.integers(0, 256, (40, 40), dtype=np.uint8), "L").resize((W, W), Image.Resampling.BICUBIC)
    fine = to_img(np.clip(0.5 + 0.25 * rng.standard_normal((W, W)), 0, 1))
    density += (0.07 * (arr(coarse, 0.006) - 0.5) + 0.12 * (arr(fine, 0.003) - 0.5)) * marks_mask

    # --- bones --------------------------------------------------------------------------------------
    spine = cv.blank()
    y = -0.02 + rng.uniform(0.0, 0.03)
    while y < 1.05:
        cv.poly([(cx - 0.032, y), (cx + 0.032, y), (cx + 0.034, y + 0.036), (cx - 0.034, y + 0.036)], spine)
        y += 0.048
    density += 0.07 * arr(spine, 0.006) * (1.0 - 0.5 * arr(heart_img, 0.01))
    ped = cv.blank()
    y = 0.0
    while y < 1.05:
        for s in (-1, 1):
            cv.poly(ellipse((cx + s * 0.026, y + 0.012), 0.007, 0.011), ped)
        y += 0.048
    density += 0.035 * arr(ped, 0.004)

    ribs = cv.blank()
    ribs_ant = cv.blank()
    for s in (-1, 1):
        top = an.apex - 0.02
        bottom = an.dome[s] - 0.02
        n_ribs = 9
        sp = (bottom - top) / (n_ribs - 0.6)
        for i in range(n_ribs):
            y0 = top + i * sp + rng.uniform(-0.004, 0.004)
            pts = []
            for u in np.linspace(0.0, 1.0, 24):
                d = 0.04 + u * (an.tw + 0.012 - 0.04)
                pts.append((cx + s * d, y0 - 0.05 * math.sin(0.8 * math.pi * u) + 0.09 * u**4))
            cv.line(pts, 0.017 + 0.0015 * i / n_ribs, ribs)
            ya = y0 + 0.03
            pts = [(cx + s * (an.tw + 0.005 - u * (an.tw - 0.12)), ya + 0.12 * u + 0.02 * u * u) for u in np.linspace(0, 1, 16)]
            if i < 6:
                cv.line(pts, 0.015, ribs_ant)
    rib_a = arr(ribs, 0.003)
    rib_core = arr(ribs.filter(ImageFilter.MinFilter(5)), 0.003)
    rib_v = 0.75 * rib_a + 0.25 * (rib_a - rib_core)  # slightly brighter cortex
    chest = np.clip((an.tw + 0.03 - np.abs(ax - cx)) / 0.01, 0.0, 1.0)
    density += (0.12 * rib_v + 0.05 * arr(ribs_ant, 0.005)) * chest * (0.45 + 0.55 * lung_soft * (1.0 - fluid))

    clav = cv.blank()
    for s in (-1, 1):
        pts = [(0.035, 0.05), (0.12, 0.0), (0.24, -0.025), (0.31, -0.055)]
        cv.line([(cx + s * d, an.apex + dy) for d, dy in pts], 0.024, clav)
    density += 0.13 * arr(clav, 0.004)

    # airway and gastric bubble
    tr = cv.line([(cx + 0.3 * an.shift, 0.0), (cx + an.shift, an.hilum - 0.06)], 0.03)
    cv.line([(cx + an.shift, an.hilum - 0.065), (cx + an.shift - 0.055, an.hilum - 0.005)], 0.02, tr)
    cv.line([(cx + an.shift, an.hilum - 0.065), (cx + an.shift + 0.065, an.hilum + 0.005)], 0.02, tr)
    density -= 0.16 * arr(tr, 0.006) * (1.0 - lung_soft)
    gb_c = (cx + 0.16, an.dome[1] + 0.065 + rng.uniform(0.0, 0.02))
    gb = [p for p in ellipse(gb_c, rng.uniform(0.035, 0.055), 0.03) if p[1] <= gb_c[1]]
    density -= 0.16 * arr(cv.poly(gb), 0.006)

    # --- findings that add density ----------------------------------------------------------------
    density += 0.48 * fluid
    if lab == "Pneumonia":
        zone = ("upper", "mid", "lower")[int(rng.integers(3))]
        if zone == "upper":
            yc = an.apex + rng.uniform(0.09, 0.15)
        elif zone == "mid":
            yc = an.hilum + rng.uniform(-0.02, 0.05)
        else:
            yc = an.dome[side] - rng.uniform(0.06, 0.11)
        dc = rng.uniform(an.mw + 0.12, an.tw - 0.09)
        xc = an.x(side, dc)
        patch = np.zeros_like(density)
        spread = rng.uniform(0.04, 0.06)
        for _ in range(int(rng.integers(7, 12))):
            bx, by = xc + rng.normal(0, spread), yc + rng.normal(0, spread * 0.8)
            r = rng.uniform(0.018, 0.04)
            patch += rng.uniform(0.5, 1.0) * np.exp(-((ax - bx) ** 2 + (ay - by) ** 2) / (2 * r * r))
        fluff = Image.fromarray(rng.integers(0, 256, (28, 28), dtype=np.uint8), "L")
        fluff = arr(fluff.resize((W, W), Image.Resampling.BICUBIC), 0.004)
        patch = np.clip(patch * (0.35 + 1.1 * fluff), 0.0, 1.0) * arr(to_img(eff[side]), 0.01)
        # faint air bronchograms inside the consolidation
        br = cv.blank()
        for _ in range(2):
            ang = rng.uniform(-0.6, 0.6) + (0.0 if side > 0 else math.pi)
            x0, y0 = xc - 0.03 * math.cos(ang), yc - 0.03 * math.sin(ang)
            x1, y1 = x0 + 0.07 * math.cos(ang), y0 + 0.07 * math.sin(ang)
            cv.line([(x0, y0), (x1, y1), (x1 + 0.03 * math.cos(ang + 0.5), y1 + 0.03 * math.sin(ang + 0.5))], 0.006, br)
        amp = rng.uniform(0.36, 0.46)
        density += amp * patch - 0.12 * arr(br, 0.002) * np.clip(patch * 1.5, 0, 1)
        f["zone"] = zone
        f["across_cm"] = cm(2 * (spread + 0.03), an)
    elif lab == "Atelectasis":
        n_plates = 1 + int(rng.random() < 0.5)
        zone = "lower" if rng.random() < 0.6 else "mid"
        plates = cv.blank()
        for k in range(n_plates):
            if zone == "lower":
                yc = an.dome[side] - rng.uniform(0.06, 0.1) - 0.045 * k
            else:
                yc = an.hilum + rng.uniform(0.04, 0.08) + 0.04 * k
            dc = rng.uniform(an.mw + 0.11, an.tw - 0.1)
            half = rng.uniform(0.07, 0.11) * (0.75 if k else 1.0)
            ang = math.radians(rng.uniform(-12, 12))
            bow = rng.uniform(-0.012, 0.012)
            pts = []
            for u in np.linspace(-1.0, 1.0, 15):
                pts.append((an.x(side, dc) + u * half * math.cos(ang), yc + u * half * math.sin(ang) + bow * (1 - u * u)))
            cv.line(pts, rng.uniform(0.024, 0.034) * (0.8 if k else 1.0), plates)
        density += rng.uniform(0.34, 0.42) * arr(plates, 0.007) * arr(to_img(eff[side]), 0.006)
        f["plates"], f["zone"] = n_plates, zone

    if collapsed is not None:
        density -= 0.13 * arr(to_img(rim), 0.002)
        density += 0.07 * arr(to_img(collapsed), 0.004)
        density += 0.16 * pleural

    # --- exposure: contrast, gamma, heel effect ---------------------------------------------------
    gamma = rng.uniform(0.85, 1.15)
    lo, hi = rng.uniform(0.02, 0.07), rng.uniform(0.86, 0.97)
    heel = 1.0 + rng.uniform(-0.05, 0.05) * (ay - 0.5) + rng.uniform(-0.03, 0.03) * (ax - 0.5)
    pixels = 255.0 * (lo + (hi - lo) * np.clip(density * heel, 0.0, 1.0) ** gamma)
    small = Image.fromarray(pixels.astype(np.float32), "F").resize((SIZE, SIZE), Image.Resampling.LANCZOS)
    return np.asarray(small, dtype=np.float64)


# ----------------------------------------------------------------------------------------------
# label font: a tiny built-in 5x7 bitmap so the result never depends on system fonts

GLYPHS = {
    "S": ["01111", "10000", "10000", "01110", "00001", "00001", "11110"],
    "Y": ["10001", "10001", "01010", "00100", "00100", "00100", "00100"],
    "N": ["10001", "11001", "10101", "10011", "10001", "10001", "10001"],
    "T": ["11111", "00100", "00100", "00100", "00100", "00100", "00100"],
    "H": ["10001", "10001", "10001", "11111", "10001", "10001", "10001"],
    "E": ["11111", "10000", "10000", "11110", "10000", "10000", "11111"],
    "I": ["01110", "00100", "00100", "00100", "00100", "00100", "01110"],
    "C": ["01110", "10001", "10000", "10000", "10000", "10001", "01110"],
    "R": ["11110", "10001", "10001", "11110", "10100", "10010", "10001"],
}


def burn_text(a: np.ndarray, text: str, x0: int, y0: int, value: float) -> None:
    for i, ch in enumerate(text):
        for r, row in enumerate(GLYPHS[ch]):
            for c, bit in enumerate(row):
                if bit == "1":
                    a[y0 + r, x0 + i * 6 + c] = value


def finish(img: np.ndarray, rng: np.random.Generator) -> Image.Image:
    """Quantum mottle, then the burnt-in labels; returns the final 8-bit image."""
    sigma = rng.uniform(1.6, 3.2)
    n = rng.standard_normal((SIZE, SIZE))
    pad = np.pad(n, 1, mode="edge")
    n = (pad[:-2, 1:-1] + 2 * pad[1:-1, 1:-1] + pad[2:, 1:-1]) / 4.0  # mild vertical correlation
    a = img + sigma * 1.6 * n
    a = np.clip(np.round(a), 0, 255)
    x0, y0 = SIZE - 3 - 9 * 6 + 1, SIZE - 10
    a[y0 - 2 : y0 + 9, x0 - 2 : x0 + 9 * 6 + 1] = np.minimum(a[y0 - 2 : y0 + 9, x0 - 2 : x0 + 9 * 6 + 1], 24.0)
    burn_text(a, "SYNTHETIC", x0, y0, 165.0)
    burn_text(a, "R", 6, 6, 215.0)
    return Image.fromarray(a.astype(np.uint8), "L")


# ----------------------------------------------------------------------------------------------
# reports (original wording, generated from the drawn parameters)


def report(case: Case) -> str:
    f, lab = case.facts, case.label
    sw = side_word(case.side)
    other = side_word(-case.side)
    heart = f"heart size is normal (cardiothoracic ratio about {f['ctr']:.2f})"
    if lab == "Cardiomegaly":
        ctr = round(f["ctr"], 2)
        deg = "mildly" if ctr < 0.6 else ("moderately" if ctr < 0.65 else "markedly")
        return (
            "Synthetic phantom. "
            f"Frontal chest view with a {deg} enlarged cardiac silhouette, cardiothoracic ratio about {f['ctr']:.2f}, "
            "the left heart border displaced laterally toward the chest wall. "
            "Both lungs are clear, with no consolidation, pleural effusion or pneumothorax."
        )
    if lab == "Pleural Effusion":
        return (
            "Synthetic phantom. "
            f"Frontal chest view with a {f['size']} {sw} pleural effusion: homogeneous opacity fills the {sw} lung base "
            f"with a meniscus rising along the lateral chest wall, blunting the {sw} costophrenic angle and obscuring the {sw} hemidiaphragm. "
            f"The fluid reaches about {f['pct']}% of the way up the {sw} hemithorax; the {other} lung is clear and the {heart}."
        )
    if lab == "Pneumothorax":
        return (
            "Synthetic phantom. "
            f"Frontal chest view with a {f['size']} {sw} pneumothorax: a thin visceral pleural line outlines the partially collapsed {sw} lung, "
            "with a dark rim devoid of lung markings between it and the lateral chest wall and apex. "
            f"The lung edge lies about {f['gap_cm']:.0f} cm from the lateral chest wall at the level of the hilum; "
            f"there is no mediastinal shift and the {other} lung is clear."
        )
    if lab == "Pneumonia":
        return (
            "Synthetic phantom. "
            f"Frontal chest view with patchy, fluffy, ill-defined airspace consolidation in the {sw} {f['zone']} zone, "
            f"about {f['across_cm']:.0f} cm across, with faint air bronchograms. "
            f"No pleural effusion or pneumothorax; the {heart}."
        )
    if lab == "Atelectasis":
        plates = "a plate-like linear opacity" if f["plates"] == 1 else "two plate-like linear opacities"
        shift = f" and the trachea and mediastinum are drawn slightly toward the {sw}" if f["shift"] else ""
        return (
            "Synthetic phantom. "
            f"Frontal chest view with {plates} in the {sw} {f['zone']} zone, in keeping with discoid atelectasis. "
            f"There is volume loss on the {sw}: the {sw} hemidiaphragm is raised by about {f['raise_cm']:.0f} cm{shift}. "
            "No pleural effusion or pneumothorax."
        )
    raise ValueError(lab)


# ----------------------------------------------------------------------------------------------
# driver


def plan() -> list[tuple[str, Case, str]]:
    """(key, case, split) for all 40 phantoms; keys are shuffled so they do not reveal the label."""
    cases = []
    for ci, lab in enumerate(LABELS):
        for i in range(PER_CLASS):
            side = 0 if lab == "Cardiomegaly" else (-1 if i % 2 == 0 else 1)
            rng = np.random.default_rng([SEED, ci, i])
            cases.append((Case(lab, side, rng), SPLITS[i]))
    order = np.random.default_rng(SEED).permutation(len(cases))
    return [(f"phantom_{k + 1:02d}", cases[j][0], cases[j][1]) for k, j in enumerate(order)]


def png_bytes(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def generate(out: Path) -> tuple[int, int]:
    out = Path(out)
    (out / "rad").mkdir(parents=True, exist_ok=True)
    rows = []
    total = 0
    for key, case, split in plan():
        pixels = draw_case(case)
        img = finish(pixels, case.rng)
        data = png_bytes(img)
        (out / "rad" / f"{key}.png").write_bytes(data)
        total += len(data)
        rows.append({"key": key, "label": case.label, "split": split, "image": f"rad/{key}.png", "report": report(case)})
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=["key", "label", "split", "image", "report"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    csv_bytes = buf.getvalue().encode("utf-8")
    (out / "rad.csv").write_bytes(csv_bytes)
    return len(rows), total + len(csv_bytes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"output folder (default: {DEFAULT_OUT})")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    n, size = generate(args.out)
    print(f"wrote {n} phantoms and rad.csv to {args.out} ({size / 1024:.0f} KiB) in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
