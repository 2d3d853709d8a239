package com.adbconnector.phonefw;

import android.graphics.Rect;
import android.view.accessibility.AccessibilityNodeInfo;
import android.view.accessibility.AccessibilityWindowInfo;
import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * One snapshot of the phone's windows, as the accessibility layer would
 * hand them over: the phone sends its screen as `uiautomator dump` XML
 * (each top-level node one window, top-most first) and every node
 * becomes an AccessibilityNodeInfo with the properties the dump shows.
 */
public final class Screen {
    public final List<AccessibilityWindowInfo> windows = new ArrayList<>();

    private Screen() {}

    public static Screen fetch() {
        byte[] xml = Phone.call("dump");
        Screen s = new Screen();
        if (xml.length == 0) {
            return s; // screen off: no windows
        }
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            Element h = f.newDocumentBuilder().parse(new ByteArrayInputStream(xml)).getDocumentElement();
            int w = 0;
            for (Node c = h.getFirstChild(); c != null; c = c.getNextSibling()) {
                if (c instanceof Element && "node".equals(c.getNodeName())) {
                    s.windows.add(new AccessibilityWindowInfo(node((Element) c, String.valueOf(w))));
                    w++;
                }
            }
        } catch (Exception e) {
            throw new RuntimeException("phonefw: bad dump: " + e, e);
        }
        return s;
    }

    private static AccessibilityNodeInfo node(Element e, String path) {
        AccessibilityNodeInfo n = new AccessibilityNodeInfo(path);
        n.text = attr(e, "text");
        n.resourceId = attr(e, "resource-id");
        n.className = attr(e, "class");
        n.packageName = attr(e, "package");
        n.contentDesc = attr(e, "content-desc");
        n.hint = attr(e, "hint");
        n.checkable = flag(e, "checkable");
        n.checked = flag(e, "checked");
        n.clickable = flag(e, "clickable");
        n.enabled = flag(e, "enabled");
        n.focusable = flag(e, "focusable");
        n.focused = flag(e, "focused");
        n.scrollable = flag(e, "scrollable");
        n.longClickable = flag(e, "long-clickable");
        n.password = flag(e, "password");
        n.selected = flag(e, "selected");
        String d = e.getAttribute("drawing-order");
        n.drawingOrder = d.isEmpty() ? 0 : Integer.parseInt(d);
        n.bounds = bounds(e.getAttribute("bounds"));
        for (Node c = e.getFirstChild(); c != null; c = c.getNextSibling()) {
            if (c instanceof Element && "node".equals(c.getNodeName())) {
                Element ce = (Element) c;
                String idx = ce.getAttribute("index");
                int k = idx.isEmpty() ? n.children.size() : Integer.parseInt(idx);
                // A dump skips children not visible to the user but keeps
                // the others' indexes: those gaps were invisible nodes.
                while (n.children.size() < k) {
                    AccessibilityNodeInfo gone = new AccessibilityNodeInfo(path + "/" + n.children.size());
                    gone.visible = false;
                    n.children.add(gone);
                }
                n.children.add(node(ce, path + "/" + k));
            }
        }
        return n;
    }

    private static String attr(Element e, String name) {
        return e.hasAttribute(name) ? e.getAttribute(name) : null;
    }

    private static boolean flag(Element e, String name) {
        return "true".equals(e.getAttribute(name));
    }

    private static Rect bounds(String s) {
        // [l,t][r,b]
        String[] p = s.replace("][", ",").replace("[", "").replace("]", "").split(",");
        if (p.length != 4) {
            return new Rect();
        }
        return new Rect(Integer.parseInt(p[0]), Integer.parseInt(p[1]), Integer.parseInt(p[2]), Integer.parseInt(p[3]));
    }

    /** find returns the node at path ("window/index/index..."), or null. */
    public AccessibilityNodeInfo find(String path) {
        String[] p = path.split("/");
        int w = Integer.parseInt(p[0]);
        if (w >= windows.size()) {
            return null;
        }
        AccessibilityNodeInfo n = windows.get(w).getRoot();
        for (int i = 1; i < p.length && n != null; i++) {
            AccessibilityNodeInfo next = null;
            for (int j = 0; j < n.getChildCount(); j++) {
                AccessibilityNodeInfo c = n.getChild(j);
                if (c.path().equals(n.path() + "/" + p[i])) {
                    next = c;
                }
            }
            n = next;
        }
        return n;
    }

    /** focused returns the node with the input focus, or null. */
    public AccessibilityNodeInfo focused() {
        for (AccessibilityWindowInfo w : windows) {
            AccessibilityNodeInfo f = focused(w.getRoot());
            if (f != null) {
                return f;
            }
        }
        return null;
    }

    private static AccessibilityNodeInfo focused(AccessibilityNodeInfo n) {
        if (n.isFocused() && n.isEditable()) {
            return n;
        }
        for (int i = 0; i < n.getChildCount(); i++) {
            AccessibilityNodeInfo f = focused(n.getChild(i));
            if (f != null) {
                return f;
            }
        }
        return null;
    }
}
