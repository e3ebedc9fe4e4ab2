package dev.warden.benchmark;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import javax.imageio.ImageIO;

/**
 * A bar chart of how Warden compares with Redisson on each metric: the bar is the factor by which
 * Warden is better (right of 1×) or worse (left of 1×), whichever way the metric counts.
 */
final class Chart {

	private static final int WIDTH = 1100;

	private static final int ROW = 22;

	private Chart() {
	}

	static void write(List<Report.Comparison> comparisons, Path file) throws IOException {
		int height = 60 + comparisons.size() * ROW;
		BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
		Graphics2D g = image.createGraphics();
		g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
		g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
		g.setColor(Color.WHITE);
		g.fillRect(0, 0, WIDTH, height);
		g.setColor(Color.DARK_GRAY);
		g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
		g.drawString("Warden vs Redisson: how many times better (right) or worse (left), log scale", 10, 22);
		g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
		int labelWidth = 560;
		int center = labelWidth + (WIDTH - labelWidth) / 2;
		double pixelsPerDoubling = (WIDTH - labelWidth - 40) / 2.0 / 4; // ±16×
		for (int i = 0; i < comparisons.size(); i++) {
			Report.Comparison comparison = comparisons.get(i);
			int y = 40 + i * ROW;
			g.setColor(Color.DARK_GRAY);
			g.drawString(comparison.metric(), 10, y + 14);
			double factor = comparison.betterBy();
			int length = (int) Math.round(Math.log(factor) / Math.log(2) * pixelsPerDoubling);
			length = Math.max(-(center - labelWidth - 5), Math.min(WIDTH - center - 60, length));
			g.setColor(factor >= 1 ? new Color(46, 139, 87) : new Color(200, 70, 60));
			g.fillRect(Math.min(center, center + length), y + 3, Math.abs(length), ROW - 8);
			g.setColor(Color.DARK_GRAY);
			String text = String.format(java.util.Locale.ROOT, "%.2f×", factor);
			g.drawString(text, (length >= 0) ? center + length + 4 : center + length - 44, y + 14);
		}
		g.setColor(Color.GRAY);
		g.setStroke(new BasicStroke(1));
		g.drawLine(center, 32, center, height - 10);
		g.dispose();
		ImageIO.write(image, "png", file.toFile());
	}

}
